import type pg from 'pg';
import type { NoticeRecord, OutboxRowRecord } from './downstream-accounts.js';

/**
 * The outbox rows a consumer wrote for these incoming keys (a run's own, whatever else the table
 * holds). A relay run's lease holder is `relay:<uuid>` and a row is marked only by its holder, so
 * the holder left on a dispatched row says who sent it.
 *
 * @example
 * ```ts
 * const rows = await readOutboxRows(pool, 'ship-order', workload.keys); // [{ id, orderId, groupSeq: 3, dispatched: true, byRelay: false }, ...]
 * ```
 */
export async function readOutboxRows(pool: pg.Pool, consumer: string, keys: readonly string[]): Promise<OutboxRowRecord[]> {
  const { rows } = await pool.query<{ id: string; order_id: string; group_id: string | null; group_seq: string | null; dispatched: boolean; by_relay: boolean }>(
    `SELECT id, body::json->>'orderId' AS order_id, group_id, group_seq, dispatched_at IS NOT NULL AS dispatched, coalesce(claimed_by LIKE 'relay:%', false) AS by_relay
       FROM outbox_message WHERE consumer_name = $1 AND message_key = ANY($2::text[])`,
    [consumer, keys],
  );
  return rows.map((row) => ({
    id: row.id, orderId: row.order_id, groupId: row.group_id, groupSeq: row.group_seq === null ? null : Number(row.group_seq), dispatched: row.dispatched, byRelay: row.by_relay,
  }));
}

/**
 * How many of a consumer's rows for these keys are neither dispatched nor failed.
 *
 * @example
 * ```ts
 * await countOpenOutboxRows(pool, 'ship-order', workload.keys) // 0 once the relays caught up
 * ```
 */
export async function countOpenOutboxRows(pool: pg.Pool, consumer: string, keys: readonly string[]): Promise<number> {
  const { rows } = await pool.query<{ open: number }>(
    `SELECT count(*)::int AS open FROM outbox_message
      WHERE consumer_name = $1 AND message_key = ANY($2::text[]) AND dispatched_at IS NULL AND failed_at IS NULL`,
    [consumer, keys],
  );
  return rows[0]?.open ?? 0;
}

/**
 * The shipment notices of these orders, in the order they were written.
 *
 * @example
 * ```ts
 * const notices = await readNotices(pool, workload.orders.map((order) => order.orderId));
 * ```
 */
export async function readNotices(pool: pg.Pool, orderIds: readonly string[]): Promise<NoticeRecord[]> {
  const { rows } = await pool.query<{ order_id: string; message_key: string; group_id: string | null }>(
    'SELECT order_id, message_key, group_id FROM shipment_notice WHERE order_id = ANY($1::uuid[]) ORDER BY notice_id',
    [orderIds],
  );
  return rows.map((row) => ({ orderId: row.order_id, key: row.message_key, groupId: row.group_id }));
}
