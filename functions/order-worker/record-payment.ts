import type { SQSRecord } from 'aws-lambda';
import * as z from 'zod/mini';
import { PermanentError, sql, type Database, type InboxCommonOptions, type Transaction, type TransactionModeOptions } from '../inbox/index.js';
import { kafkaValue, type KafkaRecord } from '../inbox/kafka/index.js';

/** A payment received for an order. */
export const RecordPayment = z.object({
  paymentId: z.uuid(),
  orderId: z.uuid(),
  amount: z.string().check(z.regex(/^\d{1,10}(\.\d{1,2})?$/, 'amount must be a positive decimal with at most 2 places')),
});

/** A validated payment message. */
export type RecordPayment = z.infer<typeof RecordPayment>;

/** The consumer name the payment claims are recorded under. */
export const RECORD_PAYMENT_CONSUMER = 'record-payment';

/**
 * Parses and validates a payment body; an invalid one throws and the inbox rejects it.
 *
 * @example
 * ```ts
 * parsePayment(record) // { paymentId, orderId, amount: '12.50' }
 * ```
 */
export function parsePayment(record: SQSRecord): RecordPayment {
  return RecordPayment.parse(JSON.parse(record.body));
}

/**
 * The effect of a payment, two tables in the claim's transaction: it adds to the order's paid
 * total and is stored as a row of its own. A payment for an unknown order can never succeed, so it
 * is a PermanentError: rolled back, rejected with its reason, not retried.
 *
 * @example
 * ```ts
 * handle: (payment, { tx }) => recordPayment(payment, tx)
 * ```
 */
export async function recordPayment(payment: RecordPayment, tx: Transaction): Promise<void> {
  const amount = sql.decimal(payment.amount);
  const updated = await tx.query(sql`UPDATE orders SET paid_total = paid_total + ${amount}, updated_at = now()
    WHERE order_id = ${sql.uuid(payment.orderId)}`);
  if (updated.rowCount === 0) throw new PermanentError(`order ${payment.orderId} does not exist`);
  await tx.query(sql`INSERT INTO order_payments (payment_id, order_id, amount)
    VALUES (${sql.uuid(payment.paymentId)}, ${sql.uuid(payment.orderId)}, ${amount})`);
}

/**
 * The transaction-mode example on an SQS queue.
 *
 * @example
 * ```ts
 * export const paymentHandler = middy().use(inbox(recordPaymentOptions(dataApiDatabaseFromEnv())));
 * ```
 */
export function recordPaymentOptions(db: Database, extra: Partial<Omit<InboxCommonOptions<RecordPayment>, 'db'>> = {}): TransactionModeOptions<RecordPayment> {
  return { consumer: RECORD_PAYMENT_CONSUMER, db, parse: parsePayment, handle: (payment, { tx }) => recordPayment(payment, tx), ...extra };
}

/**
 * The same example fed from a Kafka topic: the record's value is the body.
 *
 * @example
 * ```ts
 * export const kafkaPaymentHandler = middy().use(kafkaInbox(kafkaRecordPaymentOptions(dataApiDatabaseFromEnv())));
 * ```
 */
export function kafkaRecordPaymentOptions(db: Database, extra: Partial<Omit<InboxCommonOptions<RecordPayment, KafkaRecord>, 'db'>> = {}): TransactionModeOptions<RecordPayment, KafkaRecord> {
  return {
    consumer: RECORD_PAYMENT_CONSUMER,
    db,
    parse: (record) => RecordPayment.parse(JSON.parse(kafkaValue(record))),
    handle: (payment, { tx }) => recordPayment(payment, tx),
    ...extra,
  };
}
