import type { SQSRecord } from 'aws-lambda';
import * as z from 'zod/mini';
import { sql, type Database, type InboxCommonOptions, type SqlStatement, type StatementModeOptions } from '../inbox/index.js';
import { kafkaValue, type KafkaRecord } from '../inbox/kafka/index.js';

/** A request to ship one order. */
export const ShipOrder = z.object({
  orderId: z.uuid(),
  requestedAt: z.optional(z.iso.datetime()),
});

/** A validated ship-order message. */
export type ShipOrder = z.infer<typeof ShipOrder>;

/** The consumer name the ship-order claims are recorded under. */
export const SHIP_ORDER_CONSUMER = 'ship-order';

/**
 * Parses and validates a ship-order body; a body that is not JSON or not a ship-order throws, and
 * the inbox rejects the message with that reason.
 *
 * @example
 * ```ts
 * parseShipOrder(record) // { orderId: '0190...' }
 * ```
 */
export function parseShipOrder(record: SQSRecord): ShipOrder {
  return ShipOrder.parse(JSON.parse(record.body));
}

/**
 * The effect of shipping an order: it sets the order's status and bumps its version. Given as the
 * `statement`, it runs in the same statement as the claim, so a redelivery bumps nothing.
 *
 * @example
 * ```ts
 * statement: shipOrder
 * ```
 */
export function shipOrder(order: ShipOrder): SqlStatement {
  return sql`UPDATE orders SET status = 'shipped', version = version + 1, updated_at = now()
    WHERE order_id = ${sql.uuid(order.orderId)}`;
}

/**
 * The classic example in statement mode, on an SQS queue: a message costs one round trip.
 *
 * @example
 * ```ts
 * export const handler = middy().use(inbox(shipOrderOptions(pgDatabase({ connectionString }))));
 * ```
 */
export function shipOrderOptions(db: Database, extra: Partial<Omit<InboxCommonOptions<ShipOrder>, 'db'>> = {}): StatementModeOptions<ShipOrder> {
  return { consumer: SHIP_ORDER_CONSUMER, db, parse: parseShipOrder, statement: shipOrder, ...extra };
}

/**
 * The same example fed from a Kafka topic (Amazon MSK or self-managed): the record's value is the
 * body; the key is its `idempotency-key` header, else its place in the log.
 *
 * @example
 * ```ts
 * export const kafkaHandler = middy().use(kafkaInbox(kafkaShipOrderOptions(dataApiDatabaseFromEnv())));
 * ```
 */
export function kafkaShipOrderOptions(db: Database, extra: Partial<Omit<InboxCommonOptions<ShipOrder, KafkaRecord>, 'db'>> = {}): StatementModeOptions<ShipOrder, KafkaRecord> {
  return { consumer: SHIP_ORDER_CONSUMER, db, parse: (record) => ShipOrder.parse(JSON.parse(kafkaValue(record))), statement: shipOrder, ...extra };
}
