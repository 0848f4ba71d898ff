import type { SQSRecord } from 'aws-lambda';
import * as z from 'zod/mini';
import { InboxConfigError, sql, type Database, type InboxCommonOptions, type SqlStatement, type OutboxMessage, type StatementContext, type StatementModeOptions } from '../inbox/index.js';
import { kafkaValue, type KafkaRecord } from '../inbox/kafka/index.js';
import type { Publisher, StatementOutboxOptions } from '../inbox/outbox/index.js';
import type { OrderShipped } from '../shipment-notices/shipment-notice.js';

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

/** The outbox target the order worker sends its OrderShipped messages to: the shipment-notices queue (FIFO). */
export const SHIPMENT_NOTICES_TARGET = 'shipmentNotices';

/**
 * What shipping an order sends on: one OrderShipped message to the shipment-notices queue, in the
 * incoming message's group (the customer's), so the notices of a customer arrive in the order the
 * orders shipped; an order that came without a group is a group of its own.
 *
 * @example
 * ```ts
 * orderShippedMessages({ orderId }, { record, key }) // [{ target: 'shipmentNotices', body: { type: 'OrderShipped', orderId }, groupId: 'customer-7' }]
 * ```
 */
export function orderShippedMessages(order: ShipOrder, { record }: StatementContext): OutboxMessage[] {
  const body: OrderShipped = { type: 'OrderShipped', orderId: order.orderId };
  return [{ target: SHIPMENT_NOTICES_TARGET, body, groupId: record.attributes?.MessageGroupId ?? order.orderId }];
}

/**
 * The order worker's outbox: its OrderShipped messages, written in the same statement as the
 * shipment, sent after the commit to `targets.shipmentNotices` (the relay sends what is left).
 *
 * @example
 * ```ts
 * export const handler = middy().use(inbox(shipOrderOptions(db, { outbox: shipOrderOutbox(outboxTargetsFromEnv()) })));
 * ```
 */
export function shipOrderOutbox(targets: Readonly<Record<string, Publisher>>, extra: Partial<Omit<StatementOutboxOptions<ShipOrder, SQSRecord>, 'targets' | 'messages'>> = {}): StatementOutboxOptions<ShipOrder, SQSRecord> {
  if (targets?.[SHIPMENT_NOTICES_TARGET] === undefined) {
    throw new InboxConfigError(`The order worker's outbox needs a target named ${SHIPMENT_NOTICES_TARGET}: { ${SHIPMENT_NOTICES_TARGET}: sqsTarget({ queueUrl }) }.`);
  }
  return { targets, messages: orderShippedMessages, ...extra };
}

/** What `shipOrderOptions` lets a caller add or change: the common options and the outbox. */
export type ShipOrderExtra = Partial<Omit<InboxCommonOptions<ShipOrder>, 'db'>> & { readonly outbox?: StatementOutboxOptions<ShipOrder, SQSRecord> };

/**
 * The classic example in statement mode, on an SQS queue: a message costs one round trip. With
 * `outbox: shipOrderOutbox(targets)` each shipment also sends an OrderShipped message on.
 *
 * @example
 * ```ts
 * export const handler = middy().use(inbox(shipOrderOptions(pgDatabase({ connectionString }))));
 * ```
 */
export function shipOrderOptions(db: Database, extra: ShipOrderExtra = {}): StatementModeOptions<ShipOrder> {
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
