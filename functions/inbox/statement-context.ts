import type { SQSRecord } from 'aws-lambda';

/**
 * What a statement-mode effect is given: the record and the key it is claimed under; no
 * transaction (statement mode's outbox is its `messages`). A handler's `MessageContext` adds the
 * transaction and the outbox to it.
 *
 * @example
 * ```ts
 * statement: (order, { key }) => sql`UPDATE orders SET shipped_by = ${key} WHERE order_id = ${order.id}`
 * ```
 */
export interface StatementContext<R = SQSRecord> {
  /** The record as it arrived. */
  record: R;
  /** The idempotency key the message was claimed under. */
  key: string;
}
