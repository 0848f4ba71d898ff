import type { SQSRecord } from 'aws-lambda';
import { sql, type Database, type InboxOptions } from '../functions/inbox/index.js';
import { sqsRecord } from '../test/support/sqs-events.js';

/** The message of bench:data-api's batches: ship one order. */
export type Ship = { orderId: string };
/** How a scenario applies its batch. */
export type Mode = 'statement, batched' | 'statement' | 'transaction';
export type Queue = 'standard' | 'fifo';

export const MODES = ['statement, batched', 'statement', 'transaction'] as const;
export const QUEUES = ['standard', 'fifo'] as const;

const ship = (orderId: string) => sql`UPDATE orders SET status = 'shipped', version = version + 1 WHERE order_id = ${sql.uuid(orderId)}`;

/**
 * A fresh batch over the given orders: new messageIds, so every message is a fresh claim; on FIFO
 * the records are spread over `groups` message groups.
 *
 * @example
 * ```ts
 * scenarioBatch(orderIds, 'fifo', 3) // 10 records in group-0, group-1, group-2
 * ```
 */
export function scenarioBatch(orderIds: readonly string[], queue: Queue, groups: number): SQSRecord[] {
  return orderIds.map((orderId, i) => sqsRecord({ orderId }, queue === 'fifo' ? { groupId: `group-${i % groups}` } : {}));
}

/**
 * The kit's options for a scenario: statement mode batched or unbatched, or transaction mode, with
 * the kit's concurrency or one message at a time.
 *
 * @example
 * ```ts
 * await processBatch(sqsEvent(...records), lambdaContext(), scenarioOptions('statement, batched', db, 10));
 * ```
 */
export function scenarioOptions(mode: Mode, db: Database, concurrency: number): InboxOptions<Ship> {
  const base = { consumer: `bench-${mode.replace(', ', '-')}-${concurrency}`, db, concurrency };
  return mode === 'transaction'
    ? { ...base, handle: async (order, { tx }) => { await tx.query(ship(order.orderId)); } }
    : { ...base, batchStatements: mode === 'statement, batched', statement: (order) => ship(order.orderId) };
}
