import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processBatch, sql, type Outcome, type StatementModeOptions } from '../../functions/inbox/index.js';
import { sqsTarget } from '../../functions/inbox/outbox/index.js';
import { countingDatabase } from '../support/counting-database.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { orderVersions, seedOrders, uniqueConsumer } from '../support/orders.js';
import { drainMessages, keyAttribute, outboxGroups, outboxRows } from '../support/outbox.js';
import { queueName, startTestSqs, type TestSqs } from '../support/sqs.js';
import { failedIds, lambdaContext, redelivery, sqsEvent, sqsRecord } from '../support/sqs-events.js';

type Ship = { orderId: string; customerId: string; notices?: number };

let local: TestSqs;

beforeAll(async () => {
  local = await startTestSqs();
});

afterAll(async () => {
  await local.close();
});

const ship = (order: Ship) => sql`UPDATE orders SET status = 'shipped', version = version + 1 WHERE order_id = ${sql.uuid(order.orderId)}`;
const record = (order: Ship) => sqsRecord(order, { key: `ship-${order.orderId}`, groupId: order.customerId });

describe.each(drivers)('statement mode: the outbox\'s rows in the guarded statement on $name', (driver) => {
  const fx = useInboxDatabase(driver);

  async function shipper(fifo = true) {
    const consumer = uniqueConsumer('outbox-stmt');
    const queueUrl = await local.createQueue(queueName('shipped', fifo));
    const outcomes: Outcome[] = [];
    const settings: StatementModeOptions<Ship> = {
      consumer,
      db: fx.db,
      onOutcome: (outcome) => outcomes.push(outcome),
      statement: ship,
      outbox: {
        targets: { shipped: sqsTarget({ queueUrl, client: local.client }) },
        messages: (order, { key }) => Array.from({ length: order.notices ?? 1 }, (_, i) => ({
          target: 'shipped', body: { orderId: order.orderId, notice: i, key }, groupId: order.customerId,
        })),
      },
    };
    return { consumer, queueUrl, outcomes, settings };
  }

  describe('one database call a message, and one more a batch for the mark', () => {
    it('a batch of 10 with the outbox costs 11 calls; without it, 10', async () => {
      const ids = await seedOrders(fx.pool, 20);
      const orders = ids.map((orderId, i) => ({ orderId, customerId: `customer-${i % 3}` }));
      const { consumer, queueUrl, settings } = await shipper();
      const withOutbox = countingDatabase(fx.db);
      const without = countingDatabase(fx.db);

      const response = await processBatch(sqsEvent(...orders.slice(0, 10).map(record)), lambdaContext(), { ...settings, db: withOutbox.db });
      await processBatch(sqsEvent(...orders.slice(10).map(record)), lambdaContext(), { consumer: `${consumer}-bare`, db: without.db, statement: ship });

      expect(failedIds(response)).toEqual([]);
      expect(withOutbox.calls()).toBe(11);
      expect(withOutbox.transactions()).toBe(0);
      expect(without.calls()).toBe(10);
      const rows = await outboxRows(fx.pool, consumer);
      expect(rows).toHaveLength(10);
      expect(rows.filter((row) => row.dispatched_at !== null)).toHaveLength(10);
      expect((await drainMessages(local.client, queueUrl)).map(keyAttribute).sort()).toEqual(rows.map((row) => row.id).sort());
    });
  });

  describe('a duplicate inserts nothing', () => {
    it('the guard\'s 22012 undoes the rows with the effect: duplicate, one set of rows, nothing sent again', async () => {
      const [orderId] = await seedOrders(fx.pool, 1);
      const { consumer, queueUrl, outcomes, settings } = await shipper();
      const first = record({ orderId: orderId!, customerId: 'c-1', notices: 2 });

      await processBatch(sqsEvent(first), lambdaContext(), settings);
      await processBatch(sqsEvent(redelivery(first)), lambdaContext(), settings);

      expect(outcomes.map((o) => o.kind)).toEqual(['processed', 'duplicate']);
      expect(await outboxRows(fx.pool, consumer)).toHaveLength(2);
      expect(await outboxGroups(fx.pool, consumer)).toEqual([expect.objectContaining({ group_id: 'c-1', next_seq: '2', open_rows: 0, holder: null })]);
      expect(await drainMessages(local.client, queueUrl)).toHaveLength(2);
      expect((await orderVersions(fx.pool, [orderId!])).get(orderId!)).toBe(1);
    });
  });

  describe('a message\'s rows keep their order in their group', () => {
    it('several rows of one message, and of the messages of a group, are numbered and sent in order', async () => {
      const ids = await seedOrders(fx.pool, 3);
      const { consumer, queueUrl, settings } = await shipper();

      await processBatch(sqsEvent(...ids.map((orderId) => record({ orderId, customerId: 'c-1', notices: 2 }))), lambdaContext(), settings);

      const rows = await outboxRows(fx.pool, consumer);
      expect(rows.map((row) => Number(row.group_seq)).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
      const bySeq = [...rows].sort((a, b) => Number(a.group_seq) - Number(b.group_seq));
      expect(bySeq.map((row) => JSON.parse(row.body))).toEqual(ids.flatMap((orderId) => [0, 1].map((notice) => expect.objectContaining({ orderId, notice }))));
      expect((await drainMessages(local.client, queueUrl)).map(keyAttribute)).toEqual(bySeq.map((row) => row.id));
    });
  });

  describe('messages the target can never take', () => {
    it('a refusal from messages rejects the message with its reason; nothing is written', async () => {
      const [orderId] = await seedOrders(fx.pool, 1);
      const { consumer, outcomes, settings } = await shipper();
      const bad: StatementModeOptions<Ship> = { ...settings, outbox: { ...settings.outbox!, messages: () => [{ target: 'shipped', body: 'no group on a FIFO queue' }] } };

      await processBatch(sqsEvent(record({ orderId: orderId!, customerId: 'c-1' })), lambdaContext(), bad);

      expect(outcomes[0]?.kind).toBe('rejected');
      expect(await outboxRows(fx.pool, consumer)).toEqual([]);
      expect((await orderVersions(fx.pool, [orderId!])).get(orderId!)).toBe(0);
    });
  });
});
