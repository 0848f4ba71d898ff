import { randomUUID } from 'node:crypto';
import type pg from 'pg';

/** Inserts pending orders and returns their ids. */
export async function seedOrders(pool: pg.Pool, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => randomUUID());
  await pool.query('INSERT INTO orders (order_id) SELECT unnest($1::uuid[])', [ids]);
  return ids;
}

/** How many times each order was shipped (its version), by id. */
export async function orderVersions(pool: pg.Pool, ids: string[]): Promise<Map<string, number>> {
  const { rows } = await pool.query<{ order_id: string; version: number }>(
    'SELECT order_id, version FROM orders WHERE order_id = ANY($1::uuid[])', [ids]);
  return new Map(rows.map((row) => [row.order_id, row.version]));
}

/** The order's row. */
export async function orderRow(pool: pg.Pool, id: string): Promise<{ status: string; version: number; paid_total: string }> {
  const { rows } = await pool.query('SELECT status, version, paid_total FROM orders WHERE order_id = $1', [id]);
  return rows[0];
}

/** The inbox rows of a consumer, by message_id. */
export async function inboxRows(pool: pg.Pool, consumer: string): Promise<Map<string, { status: string; error: string | null; payload_hash: string }>> {
  const { rows } = await pool.query('SELECT message_id, status, error, payload_hash FROM consumed_message WHERE consumer_name = $1', [consumer]);
  return new Map(rows.map((row) => [row.message_id, row]));
}

/** A consumer name no other test uses. */
export function uniqueConsumer(label: string): string {
  return `${label}-${randomUUID().slice(0, 8)}`;
}
