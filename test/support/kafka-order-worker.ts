import { kafkaValue, PermanentError, sql, type Database, type InboxCommonOptions, type KafkaInboxOptions } from '../../functions/inbox/index.js';
import { RECORD_PAYMENT_CONSUMER, RecordPayment } from '../../functions/order-worker/record-payment.js';
import { SHIP_ORDER_CONSUMER, ShipOrder } from '../../functions/order-worker/ship-order.js';
import type { KafkaEventRecord } from '../../local/kafka/index.js';

type Extra<T> = Partial<Omit<InboxCommonOptions<T, KafkaEventRecord>, 'db'>>;

/**
 * The order worker's shipping example (functions/order-worker/ship-order.ts) fed from a Kafka
 * topic: the same schema and consumer, the value read as the body. The example itself is an SQS
 * Lambda whose parse reads `record.body`, so the Kafka twin restates its one statement.
 */
export function kafkaShipOrderOptions(db: Database, extra: Extra<ShipOrder> = {}): KafkaInboxOptions<ShipOrder> {
  return {
    consumer: SHIP_ORDER_CONSUMER,
    db,
    parse: (record) => ShipOrder.parse(JSON.parse(kafkaValue(record))),
    statement: (order) => sql`UPDATE orders SET status = 'shipped', version = version + 1, updated_at = now()
      WHERE order_id = ${sql.uuid(order.orderId)}`,
    ...extra,
  };
}

/** The order worker's payment example (functions/order-worker/record-payment.ts) fed from a Kafka topic. */
export function kafkaRecordPaymentOptions(db: Database, extra: Extra<RecordPayment> = {}): KafkaInboxOptions<RecordPayment> {
  return {
    consumer: RECORD_PAYMENT_CONSUMER,
    db,
    parse: (record) => RecordPayment.parse(JSON.parse(kafkaValue(record))),
    handle: async (payment, { tx }) => {
      const amount = sql.decimal(payment.amount);
      const updated = await tx.query(sql`UPDATE orders SET paid_total = paid_total + ${amount}, updated_at = now()
        WHERE order_id = ${sql.uuid(payment.orderId)}`);
      if (updated.rowCount === 0) throw new PermanentError(`order ${payment.orderId} does not exist`);
      await tx.query(sql`INSERT INTO order_payments (payment_id, order_id, amount)
        VALUES (${sql.uuid(payment.paymentId)}, ${sql.uuid(payment.orderId)}, ${amount})`);
    },
    ...extra,
  };
}
