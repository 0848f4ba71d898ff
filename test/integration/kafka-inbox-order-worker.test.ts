import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { processKafkaBatch, type Outcome } from '../../functions/inbox/index.js';
import { kafkaRecordPaymentOptions } from '../../functions/order-worker/record-payment.js';
import { kafkaShipOrderOptions } from '../../functions/order-worker/ship-order.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { offsetKey, redelivered } from '../support/kafka-inbox.js';
import { kafkaEvent, kafkaRecord } from '../support/kafka-events.js';
import { inboxRows, orderRow, seedOrders } from '../support/orders.js';
import { lambdaContext } from '../support/sqs-events.js';

describe.each(drivers)('the order worker examples fed from Kafka on $name', (driver) => {
  const fx = useInboxDatabase(driver);

  describe('shipping an order (statement mode)', () => {
    it('sets the status to shipped and bumps the version once, however often the record and its producer retries come', async () => {
      const [orderId] = await seedOrders(fx.pool, 1);
      const headers = { 'idempotency-key': `ship-${orderId}` };
      const record = kafkaRecord({ orderId }, { key: orderId, headers });
      const producerRetry = kafkaRecord({ orderId }, { key: orderId, headers });

      await processKafkaBatch(kafkaEvent([record, producerRetry]), lambdaContext(), kafkaShipOrderOptions(fx.db));
      await processKafkaBatch(kafkaEvent([redelivered(record)]), lambdaContext(), kafkaShipOrderOptions(fx.db));

      expect(await orderRow(fx.pool, orderId!)).toMatchObject({ status: 'shipped', version: 1 });
    });

    it('rejects a record that fails the schema, with the schema error recorded under its offset key', async () => {
      const outcomes: Outcome[] = [];
      const record = kafkaRecord({ orderId: 'not-a-uuid' });

      const response = await processKafkaBatch(kafkaEvent([record]), lambdaContext(), kafkaShipOrderOptions(fx.db, { onOutcome: (o) => outcomes.push(o) }));

      expect(response).toEqual({ batchItemFailures: [] });
      expect(outcomes.map((o) => o.kind)).toEqual(['rejected']);
      expect((await inboxRows(fx.pool, 'ship-order')).get(offsetKey(record))).toMatchObject({ status: 'rejected', error: expect.stringMatching(/ZodError/) });
    });
  });

  describe('recording a payment (transaction mode, two tables)', () => {
    it('adds to the paid total and stores the payment once', async () => {
      const [orderId] = await seedOrders(fx.pool, 1);
      const payment = kafkaRecord({ paymentId: randomUUID(), orderId, amount: '12.50' });

      await processKafkaBatch(kafkaEvent([payment]), lambdaContext(), kafkaRecordPaymentOptions(fx.db));
      await processKafkaBatch(kafkaEvent([redelivered(payment)]), lambdaContext(), kafkaRecordPaymentOptions(fx.db));

      expect((await orderRow(fx.pool, orderId!)).paid_total).toBe('12.50');
      expect((await fx.pool.query('SELECT amount FROM order_payments WHERE order_id = $1', [orderId])).rows).toEqual([{ amount: '12.50' }]);
    });

    it('rejects a payment for an unknown order, leaves both tables untouched and goes on with the partition', async () => {
      const outcomes: Outcome[] = [];
      const unknownOrder = randomUUID();
      const [knownOrder] = await seedOrders(fx.pool, 1);
      const payment = kafkaRecord({ paymentId: randomUUID(), orderId: unknownOrder, amount: '3.00' });
      const next = kafkaRecord({ paymentId: randomUUID(), orderId: knownOrder, amount: '4.00' });

      const response = await processKafkaBatch(kafkaEvent([payment, next]), lambdaContext(), kafkaRecordPaymentOptions(fx.db, { onOutcome: (o) => outcomes.push(o) }));

      expect(response).toEqual({ batchItemFailures: [] });
      expect(outcomes.map((o) => o.kind)).toEqual(['rejected', 'processed']);
      expect((await inboxRows(fx.pool, 'record-payment')).get(offsetKey(payment))?.error).toBe(`PermanentError: order ${unknownOrder} does not exist`);
      expect((await fx.pool.query('SELECT 1 FROM order_payments WHERE order_id = $1', [unknownOrder])).rowCount).toBe(0);
      expect((await orderRow(fx.pool, knownOrder!)).paid_total).toBe('4.00');
    });
  });
});
