import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { processBatch, type Outcome } from '../../functions/inbox/index.js';
import { sqsTarget } from '../../functions/inbox/outbox/index.js';
import { SHIPMENT_NOTICES_TARGET, shipOrderOptions, shipOrderOutbox } from '../../functions/order-worker/ship-order.js';
import { SHIPMENT_NOTICES_CONSUMER, shipmentNoticeOptions } from '../../functions/shipment-notices/shipment-notice.js';
import { toSqsRecord } from '../../local/event-source/index.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { inboxRows, orderVersions, seedOrders, uniqueConsumer } from '../support/orders.js';
import { drainMessages, keyAttribute, outboxRows } from '../support/outbox.js';
import { queueName, startTestSqs, type TestSqs } from '../support/sqs.js';
import { failedIds, lambdaContext, redelivery, sqsEvent, sqsRecord } from '../support/sqs-events.js';

let local: TestSqs;

beforeAll(async () => {
  local = await startTestSqs();
});

afterAll(async () => {
  await local.close();
});

const noticeQueue = { arn: 'arn:aws:sqs:us-east-1:000000000000:shipment-notices.fifo', region: 'us-east-1' };

/** The notices of these orders, in the order they were written. */
async function notices(pool: pg.Pool, orderIds: readonly string[]): Promise<{ order_id: string; message_key: string; group_id: string | null }[]> {
  const { rows } = await pool.query('SELECT order_id, message_key, group_id FROM shipment_notice WHERE order_id = ANY($1::uuid[]) ORDER BY notice_id', [orderIds]);
  return rows;
}

describe.each(drivers)('the shipment-notice consumer on $name', (driver) => {
  const fx = useInboxDatabase(driver);

  describe('one notice an OrderShipped message, however often it comes', () => {
    it('writes one row with the key and group it came with, and a redelivery writes none', async () => {
      const [orderId] = await seedOrders(fx.pool, 1);
      const shipped = sqsRecord({ type: 'OrderShipped', orderId }, { key: `row-${orderId}`, groupId: 'customer-1' });
      const outcomes: Outcome[] = [];
      const options = shipmentNoticeOptions(fx.db, { onOutcome: (outcome) => outcomes.push(outcome) });

      await processBatch(sqsEvent(shipped), lambdaContext(), options);
      await processBatch(sqsEvent(redelivery(shipped), redelivery(shipped)), lambdaContext(), options);

      expect(outcomes.map((outcome) => outcome.kind)).toEqual(['processed', 'duplicate', 'duplicate']);
      expect(await notices(fx.pool, [orderId!])).toEqual([{ order_id: orderId, message_key: `row-${orderId}`, group_id: 'customer-1' }]);
    });

    it('the table does not stop a second notice of an order: only the inbox does', async () => {
      const [orderId] = await seedOrders(fx.pool, 1);
      const first = sqsRecord({ type: 'OrderShipped', orderId }, { key: `first-${orderId}`, groupId: 'customer-1' });
      const other = sqsRecord({ type: 'OrderShipped', orderId }, { key: `other-${orderId}`, groupId: 'customer-1' });

      await processBatch(sqsEvent(first, other), lambdaContext(), shipmentNoticeOptions(fx.db));

      expect(await notices(fx.pool, [orderId!])).toHaveLength(2);
    });
  });

  describe('a body that is not an OrderShipped is rejected with its reason', () => {
    it.each([
      ['not JSON', '{"orderId": '],
      ['another type', JSON.stringify({ type: 'OrderCancelled', orderId: '0190a8b2-0000-7000-8000-000000000000' })],
      ['no order id', JSON.stringify({ type: 'OrderShipped' })],
    ])('%s: rejected, acknowledged, no notice', async (_label, body) => {
      const record = sqsRecord(body, { groupId: 'customer-1' });
      const outcomes: Outcome[] = [];

      const response = await processBatch(sqsEvent(record), lambdaContext(), shipmentNoticeOptions(fx.db, { onOutcome: (outcome) => outcomes.push(outcome) }));

      expect(failedIds(response)).toEqual([]);
      expect(outcomes.map((outcome) => outcome.kind)).toEqual(['rejected']);
      expect((await inboxRows(fx.pool, SHIPMENT_NOTICES_CONSUMER)).get(record.messageId)?.status).toBe('rejected');
    });
  });

  describe('the order worker\'s outbox feeds it: ship, send on, notice', () => {
    it('each shipment sends one OrderShipped in its incoming group, keyed by its outbox row; the notices follow each group\'s order once', async () => {
      const consumer = uniqueConsumer('ship-order');
      const queueUrl = await local.createQueue(queueName('shipment-notices', true));
      const ids = await seedOrders(fx.pool, 6);
      const orders = ids.map((orderId, i) => sqsRecord({ orderId }, { key: `ship-${orderId}`, groupId: `customer-${i % 2}` }));
      const worker = shipOrderOptions(fx.db, { consumer, outbox: shipOrderOutbox({ [SHIPMENT_NOTICES_TARGET]: sqsTarget({ queueUrl, client: local.client }) }) });

      const response = await processBatch(sqsEvent(...orders), lambdaContext(), worker);
      await processBatch(sqsEvent(...orders.map((order) => redelivery(order))), lambdaContext(), worker);

      expect(failedIds(response)).toEqual([]);
      expect([...(await orderVersions(fx.pool, ids)).values()]).toEqual(ids.map(() => 1));
      const rows = await outboxRows(fx.pool, consumer);
      const groupOf = (i: number) => `customer-${i % 2}`;
      for (const group of ['customer-0', 'customer-1']) {
        const sequence = rows.filter((row) => row.group_id === group).sort((a, b) => Number(a.group_seq) - Number(b.group_seq));
        expect(sequence.map((row) => JSON.parse(row.body))).toEqual(ids.filter((_, i) => groupOf(i) === group).map((orderId) => ({ type: 'OrderShipped', orderId })));
      }
      const sent = await drainMessages(local.client, queueUrl);
      expect(sent.map(keyAttribute).sort()).toEqual(rows.map((row) => row.id).sort());
      expect(sent.map((message) => message.Attributes?.MessageDeduplicationId).sort()).toEqual(rows.map((row) => row.id).sort());

      const records = sent.map((message) => toSqsRecord(message, noticeQueue));
      await processBatch(sqsEvent(...records), lambdaContext(), shipmentNoticeOptions(fx.db));
      await processBatch(sqsEvent(...records.map((record) => redelivery(record))), lambdaContext(), shipmentNoticeOptions(fx.db));

      const written = await notices(fx.pool, ids);
      expect(written).toHaveLength(6);
      for (const group of ['customer-0', 'customer-1']) {
        expect(written.filter((notice) => notice.group_id === group).map((notice) => notice.order_id)).toEqual(ids.filter((_, i) => groupOf(i) === group));
      }
      expect(written.map((notice) => notice.message_key).sort()).toEqual(rows.map((row) => row.id).sort());
    });

    it('an order that came without a group sends its OrderShipped in a group of its own', async () => {
      const consumer = uniqueConsumer('ship-order');
      const queueUrl = await local.createQueue(queueName('shipment-notices', true));
      const [orderId] = await seedOrders(fx.pool, 1);
      const worker = shipOrderOptions(fx.db, { consumer, outbox: shipOrderOutbox({ [SHIPMENT_NOTICES_TARGET]: sqsTarget({ queueUrl, client: local.client }) }) });

      await processBatch(sqsEvent(sqsRecord({ orderId }, { key: `ship-${orderId}` })), lambdaContext(), worker);

      expect((await drainMessages(local.client, queueUrl)).map((message) => message.Attributes?.MessageGroupId)).toEqual([orderId]);
    });
  });
});
