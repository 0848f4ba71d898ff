import type pg from 'pg';
import { readEffects, readKept } from '../order-rows.js';
import type { Workload, WorkerMode } from '../workload.js';
import type { InboxRow, LaneEvidence } from './chaos-check.js';

/**
 * Records every inbox row a DELETE removes (the cleanup's), in the deleting transaction, so the
 * check still sees a purged row's claim and knows when it went. The run's own table, not the kit's.
 */
export const PURGE_AUDIT_SQL = [
  `CREATE TABLE chaos_purged_inbox (consumer_name text NOT NULL, message_id text NOT NULL, status text NOT NULL,
     error text, processed_at timestamptz NOT NULL, purged_at timestamptz NOT NULL DEFAULT clock_timestamp())`,
  `CREATE FUNCTION chaos_record_purge() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     INSERT INTO chaos_purged_inbox (consumer_name, message_id, status, error, processed_at)
       SELECT consumer_name, message_id, status, error, processed_at FROM purged_rows;
     RETURN NULL;
   END $$`,
  `CREATE TRIGGER chaos_record_purge AFTER DELETE ON consumed_message
     REFERENCING OLD TABLE AS purged_rows FOR EACH STATEMENT EXECUTE FUNCTION chaos_record_purge()`,
] as const;

/** What a lane knows of itself that the database does not: its name, its queue's order, its DLQ, what the producer gave up. */
export interface LaneFacts {
  readonly lane: string;
  readonly consumer: string;
  readonly mode: WorkerMode;
  readonly workload: Workload;
  readonly parked: LaneEvidence['parked'];
  readonly notSent: ReadonlySet<string>;
  readonly reached: LaneEvidence['reached'];
  readonly sequences: LaneEvidence['sequences'];
}

/** When each purged key's row went, in epoch milliseconds. */
export type PurgeTimes = ReadonlyMap<string, number>;

const rowsByKey = (rows: readonly { message_id: string; status: string; error: string | null }[]) =>
  new Map<string, InboxRow>(rows.map((row) => [row.message_id, { status: row.status, error: row.error }]));

/**
 * The inbox rows of a consumer that the cleanup purged during the run, and when each went.
 *
 * @example
 * ```ts
 * const { rows, purgedAt } = await readPurged(pool, 'shipment-notices');
 * ```
 */
export async function readPurged(pool: pg.Pool, consumer: string): Promise<{ rows: ReadonlyMap<string, InboxRow>; purgedAt: PurgeTimes }> {
  const purged = await pool.query<{ message_id: string; status: string; error: string | null; purged_ms: string }>(
    `SELECT message_id, status, error, (extract(epoch FROM purged_at) * 1000)::bigint::text AS purged_ms
     FROM chaos_purged_inbox WHERE consumer_name = $1`, [consumer]);
  return { rows: rowsByKey(purged.rows), purgedAt: new Map(purged.rows.map((row) => [row.message_id, Number(row.purged_ms)])) };
}

/**
 * Reads a lane's evidence from the database: the effects on its orders, its consumer's inbox rows
 * (now and purged), the rejected messages it kept, when each effect was written, and in transaction mode the ledger's three sums.
 *
 * @example
 * ```ts
 * const { evidence, purgedAt } = await readLaneEvidence(pool, facts);
 * ```
 */
export async function readLaneEvidence(pool: pg.Pool, facts: LaneFacts): Promise<{ evidence: LaneEvidence; purgedAt: PurgeTimes }> {
  const orderIds = facts.workload.orders.map((order) => order.orderId);
  const inbox = await pool.query<{ message_id: string; status: string; error: string | null }>(
    'SELECT message_id, status, error FROM consumed_message WHERE consumer_name = $1', [facts.consumer]);
  const purged = await readPurged(pool, facts.consumer);
  // Microseconds: a Date would round two close commits to one millisecond.
  const applied = await pool.query<{ order_id: string; at: string }>(
    `SELECT order_id, (extract(epoch FROM updated_at) * 1000000)::bigint::text AS at FROM orders
     WHERE order_id = ANY($1::uuid[]) AND (version > 0 OR paid_total > 0)`, [orderIds]);
  const keyOf = new Map(facts.workload.orders.map((order) => [order.orderId, order.key]));
  let ledger: LaneEvidence['ledger'];
  if (facts.mode === 'transaction') {
    const { rows: [sums] } = await pool.query<{ payments: string; paid: string; amounts: string }>(
      `SELECT (SELECT coalesce(sum(amount), 0) * 100 FROM order_payments WHERE order_id = ANY($1::uuid[]))::bigint::text AS payments,
              (SELECT coalesce(sum(paid_total), 0) * 100 FROM orders WHERE order_id = ANY($1::uuid[]))::bigint::text AS paid,
              (SELECT coalesce(sum(amount), 0) * 100 FROM orders WHERE order_id = ANY($1::uuid[]) AND paid_total > 0)::bigint::text AS amounts`,
      [orderIds]);
    ledger = { payments: BigInt(sums!.payments), paidTotals: BigInt(sums!.paid), appliedAmounts: BigInt(sums!.amounts) };
  }
  return {
    evidence: {
      ...facts,
      effects: await readEffects(pool, facts.mode, facts.workload.orders),
      inbox: rowsByKey(inbox.rows),
      purged: purged.rows,
      inboxRowCount: inbox.rows.length + purged.rows.size,
      kept: await readKept(pool, facts.consumer, facts.workload.poisonKeys),
      appliedAt: new Map(applied.rows.map((row) => [keyOf.get(row.order_id)!, BigInt(row.at)])),
      ...(ledger === undefined ? {} : { ledger }),
    },
    purgedAt: purged.purgedAt,
  };
}
