import type { SQSRecord } from 'aws-lambda';
import * as z from 'zod/mini';
import { sql, type Database, type InboxCommonOptions, type StatementModeOptions } from '../inbox/index.js';

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
 * The classic example in statement mode: shipping an order sets its status and bumps its version,
 * in the same statement as the claim, so a message costs one round trip and a redelivery bumps
 * nothing.
 *
 * @example
 * ```ts
 * export const handler = middy().use(inbox(shipOrderOptions(pgDatabase({ connectionString }))));
 * ```
 */
export function shipOrderOptions(db: Database, extra: Partial<Omit<InboxCommonOptions<ShipOrder>, 'db'>> = {}): StatementModeOptions<ShipOrder> {
  return {
    consumer: SHIP_ORDER_CONSUMER,
    db,
    parse: parseShipOrder,
    statement: (order) => sql`UPDATE orders SET status = 'shipped', version = version + 1, updated_at = now()
      WHERE order_id = ${sql.uuid(order.orderId)}`,
    ...extra,
  };
}
