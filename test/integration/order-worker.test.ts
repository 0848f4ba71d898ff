import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { processBatch, type Outcome } from '../../functions/inbox/index.js';
import { recordPaymentOptions } from '../../functions/order-worker/record-payment.js';
import { shipOrderOptions } from '../../functions/order-worker/ship-order.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { inboxRows, orderRow, seedOrders } from '../support/orders.js';
import { failedIds, lambdaContext, redelivery, sqsEvent, sqsRecord } from '../support/sqs-events.js';

describe.each(drivers)('the order worker examples on $name', (driver) => {
  const fx = useInboxDatabase(driver);

  describe('shipping an order (statement mode)', () => {
    it('sets the status to shipped and bumps the version once, however often the message comes', async () => {
      const [orderId] = await seedOrders(fx.pool, 1);
      const record = sqsRecord({ orderId }, { groupId: orderId, deduplicationId: `ship-${orderId}` });

      await processBatch(sqsEvent(record, redelivery(record)), lambdaContext(), shipOrderOptions(fx.db));
      await processBatch(sqsEvent(redelivery(record)), lambdaContext(), shipOrderOptions(fx.db));

      expect(await orderRow(fx.pool, orderId!)).toMatchObject({ status: 'shipped', version: 1 });
    });

    it('rejects a message that fails the schema, with the schema error recorded', async () => {
      const outcomes: Outcome[] = [];
      const record = sqsRecord({ orderId: 'not-a-uuid' });

      const response = await processBatch(sqsEvent(record), lambdaContext(), shipOrderOptions(fx.db, { onOutcome: (o) => outcomes.push(o) }));

      expect(failedIds(response)).toEqual([]);
      expect(outcomes[0]?.kind).toBe('rejected');
      expect((await inboxRows(fx.pool, 'ship-order')).get(record.messageId)?.error).toMatch(/ZodError/);
    });
  });

  describe('recording a payment (transaction mode, two tables)', () => {
    it('adds to the paid total and stores the payment once', async () => {
      const [orderId] = await seedOrders(fx.pool, 1);
      const payment = sqsRecord({ paymentId: randomUUID(), orderId, amount: '12.50' });

      await processBatch(sqsEvent(payment, redelivery(payment)), lambdaContext(), recordPaymentOptions(fx.db));

      expect((await orderRow(fx.pool, orderId!)).paid_total).toBe('12.50');
      expect((await fx.pool.query('SELECT amount FROM order_payments WHERE order_id = $1', [orderId])).rows).toEqual([{ amount: '12.50' }]);
    });

    it('rejects a payment for an unknown order and leaves both tables untouched', async () => {
      const outcomes: Outcome[] = [];
      const orderId = randomUUID();
      const payment = sqsRecord({ paymentId: randomUUID(), orderId, amount: '3.00' });

      await processBatch(sqsEvent(payment), lambdaContext(), recordPaymentOptions(fx.db, { onOutcome: (o) => outcomes.push(o) }));

      expect(outcomes[0]?.kind).toBe('rejected');
      expect((await inboxRows(fx.pool, 'record-payment')).get(payment.messageId)?.error).toBe(`PermanentError: order ${orderId} does not exist`);
      expect((await fx.pool.query('SELECT 1 FROM order_payments WHERE order_id = $1', [orderId])).rowCount).toBe(0);
    });
  });
});
