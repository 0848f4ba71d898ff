import type { SQSRecord } from 'aws-lambda';
import * as z from 'zod/mini';
import { sql, type Database, type InboxCommonOptions, type SqlStatement, type StatementContext, type StatementModeOptions } from '../inbox/index.js';

/** The message the order worker's outbox sends on when it ships an order. */
export const OrderShipped = z.object({
  type: z.literal('OrderShipped'),
  orderId: z.uuid(),
});

/** A validated OrderShipped message. */
export type OrderShipped = z.infer<typeof OrderShipped>;

/** The consumer name the shipment-notice claims are recorded under. */
export const SHIPMENT_NOTICES_CONSUMER = 'shipment-notices';

/**
 * Parses and validates an OrderShipped body; anything else throws, and the inbox rejects the
 * message with that reason.
 *
 * @example
 * ```ts
 * parseOrderShipped(record) // { type: 'OrderShipped', orderId: '0190...' }
 * ```
 */
export function parseOrderShipped(record: SQSRecord): OrderShipped {
  return OrderShipped.parse(JSON.parse(record.body));
}

/**
 * The effect of an OrderShipped message: one shipment notice row, with the key and group it came
 * with. Nothing in the table stops a second row for the order; the inbox's guard around this
 * statement does, so a redelivery writes nothing.
 *
 * @example
 * ```ts
 * statement: recordShipmentNotice
 * ```
 */
export function recordShipmentNotice(shipped: OrderShipped, { record, key }: StatementContext): SqlStatement {
  const groupId = record.attributes?.MessageGroupId ?? null;
  return sql`INSERT INTO shipment_notice (order_id, message_key, group_id)
    VALUES (${sql.uuid(shipped.orderId)}, ${key}, ${groupId})`;
}

/**
 * The shipment-notice consumer in statement mode: the second hop after the order worker's outbox,
 * one Data API call a message.
 *
 * @example
 * ```ts
 * export const handler = middy().use(inbox(shipmentNoticeOptions(dataApiDatabaseFromEnv())));
 * ```
 */
export function shipmentNoticeOptions(db: Database, extra: Partial<Omit<InboxCommonOptions<OrderShipped>, 'db'>> = {}): StatementModeOptions<OrderShipped> {
  return { consumer: SHIPMENT_NOTICES_CONSUMER, db, parse: parseOrderShipped, statement: recordShipmentNotice, ...extra };
}
