import type pg from 'pg';
import type { SeededOrder, WorkerMode } from './workload.js';

/**
 * Inserts the run's orders as pending rows with their amounts.
 *
 * @example
 * ```ts
 * await seedOrders(pool, workload.orders);
 * ```
 */
export async function seedOrders(pool: pg.Pool, orders: readonly SeededOrder[]): Promise<void> {
  await pool.query('INSERT INTO orders (order_id, amount) SELECT * FROM unnest($1::uuid[], $2::numeric[])', [
    orders.map((order) => order.orderId),
    orders.map((order) => order.amount),
  ]);
}

/**
 * Holds the rows of these orders locked from a session of its own, as a stuck job elsewhere would,
 * until the returned function is called: every write to them waits, and the worker's lock_timeout
 * makes their messages fail instead of hanging.
 *
 * @example
 * ```ts
 * const release = await lockOrders(pool, ['0190a8b2-...']);
 * await release();
 * ```
 */
export async function lockOrders(pool: pg.Pool, orderIds: readonly string[]): Promise<() => Promise<void>> {
  const client = await pool.connect();
  // A session the server ends (a restart) must not take the run down; its locks are gone with it.
  client.on('error', () => undefined);
  try {
    await client.query('BEGIN');
    await client.query('SELECT 1 FROM orders WHERE order_id = ANY($1::uuid[]) FOR UPDATE', [orderIds]);
  } catch (error) {
    client.release(true);
    throw error;
  }
  return async () => {
    try {
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
  };
}

/**
 * How many times each order's effect was applied, read from its row: its version in statement mode
 * (shipping bumps it once), its paid total over its amount in transaction mode (its one payment pays
 * the amount once).
 *
 * @example
 * ```ts
 * const effects = await readEffects(pool, 'statement', workload.orders); // Map { '0190...' => 1 }
 * ```
 */
export async function readEffects(pool: pg.Pool, mode: WorkerMode, orders: readonly SeededOrder[]): Promise<Map<string, number>> {
  const { rows } = await pool.query<{ order_id: string; version: number; paid_total: string; amount: string }>(
    'SELECT order_id, version, paid_total::text, amount::text FROM orders WHERE order_id = ANY($1::uuid[])',
    [orders.map((order) => order.orderId)],
  );
  return new Map(rows.map((row) => [
    row.order_id,
    mode === 'statement' ? row.version : Math.round(Number(row.paid_total) / Number(row.amount)),
  ]));
}

/**
 * The consumer's inbox rows of these keys (a run's own, whatever else the table holds): status by key.
 *
 * @example
 * ```ts
 * const inbox = await readInbox(pool, 'ship-order', workload.keys); // Map { 'ship-0190...' => 'processed', 'poison-r1-0' => 'rejected' }
 * ```
 */
export async function readInbox(pool: pg.Pool, consumer: string, keys: readonly string[]): Promise<Map<string, string>> {
  const { rows } = await pool.query<{ message_id: string; status: string }>(
    'SELECT message_id, status FROM consumed_message WHERE consumer_name = $1 AND message_id = ANY($2::text[])',
    [consumer, keys],
  );
  return new Map(rows.map((row) => [row.message_id, row.status]));
}

/**
 * The keys of these that the consumer rejected and kept (a kept_message row, `rejected`), read
 * from the database: a rejected key missing here lost its body.
 *
 * @example
 * ```ts
 * const kept = await readKept(pool, 'ship-order', workload.keys); // Set { 'poison-r1-0' }
 * ```
 */
export async function readKept(pool: pg.Pool, consumer: string, keys: readonly string[]): Promise<Set<string>> {
  const { rows } = await pool.query<{ message_key: string }>(
    "SELECT DISTINCT message_key FROM kept_message WHERE consumer_name = $1 AND kept_as = 'rejected' AND message_key = ANY($2::text[])",
    [consumer, keys],
  );
  return new Set(rows.map((row) => row.message_key));
}

/**
 * How many of these keys the consumer's inbox has settled (processed or rejected).
 *
 * @example
 * ```ts
 * await countSettled(pool, 'ship-order', workload.keys) // 1234
 * ```
 */
export async function countSettled(pool: pg.Pool, consumer: string, keys: readonly string[]): Promise<number> {
  const { rows } = await pool.query<{ settled: number }>(
    'SELECT count(*)::int AS settled FROM consumed_message WHERE consumer_name = $1 AND message_id = ANY($2::text[])',
    [consumer, keys],
  );
  return rows[0]?.settled ?? 0;
}
