import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PermanentError, processBatch, sql, type Outcome, type TransactionModeOptions } from '../../functions/inbox/index.js';
import { OutboxMessageRefusedError, OutboxTargetError, type OutboxDispatchReport } from '../../functions/inbox/outbox/index.js';
import { sqsTarget } from '../../functions/inbox/outbox/index.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { orderRow, seedOrders, uniqueConsumer } from '../support/orders.js';
import { drainMessages, keyAttribute, outboxRows, sqsFailingBodies } from '../support/outbox.js';
import { queueName, type TestSqs } from '../support/sqs.js';
import { failedIds, lambdaContext, redelivery, sqsEvent, sqsRecord } from '../support/sqs-events.js';

type Ship = { orderId: string; customerId?: string };

let local: TestSqs;
/** Bodies whose send entries the emulator fails, every time, while they are in it. */
let failing: Set<string>;

beforeAll(async () => {
  ({ local, failing } = await sqsFailingBodies());
});

afterAll(async () => {
  await local.close();
});

describe.each(drivers)('transaction mode: ctx.outbox.send on $name', (driver) => {
  const fx = useInboxDatabase(driver);

  /** A consumer shipping orders and telling the `shipped` queue, its outcomes and dispatch reports kept. */
  async function shipper(options: { fifo?: boolean; maxMessageBytes?: number; send?: (order: Ship) => object } = {}) {
    const consumer = uniqueConsumer('outbox-tx');
    const queueUrl = await local.createQueue(queueName('shipped', options.fifo));
    const outcomes: Outcome[] = [];
    const reports: OutboxDispatchReport[] = [];
    const ids: string[] = [];
    const settings: TransactionModeOptions<Ship> = {
      consumer,
      db: fx.db,
      onOutcome: (outcome) => outcomes.push(outcome),
      outbox: {
        targets: { shipped: sqsTarget({ queueUrl, client: local.client, maxMessageBytes: options.maxMessageBytes }) },
        maxAttempts: 2,
        onDispatch: (report) => reports.push(report),
      },
      handle: async (order, { tx, outbox }) => {
        await tx.query(sql`UPDATE orders SET status = 'shipped', version = version + 1 WHERE order_id = ${sql.uuid(order.orderId)}`);
        ids.push(await outbox.send({ target: 'shipped', body: options.send?.(order) ?? { shipped: order.orderId }, groupId: order.customerId }));
      },
    };
    return { consumer, queueUrl, outcomes, reports, ids, settings };
  }

  describe('a row is written in the claim\'s transaction and sent after the commit', () => {
    it('commits the row with the effect, sends it with its id as the idempotency key, and marks it dispatched', async () => {
      const [orderId] = await seedOrders(fx.pool, 1);
      const { consumer, queueUrl, ids, reports, settings } = await shipper();
      const record = sqsRecord({ orderId }, { key: `ship-${orderId}` });

      const response = await processBatch(sqsEvent(record), lambdaContext(), settings);

      expect(failedIds(response)).toEqual([]);
      const rows = await outboxRows(fx.pool, consumer);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ id: ids[0], target: 'shipped', message_key: `ship-${orderId}`, body: JSON.stringify({ shipped: orderId }), failed_at: null });
      expect(rows[0]!.dispatched_at).toBeInstanceOf(Date);
      const received = await drainMessages(local.client, queueUrl);
      expect(received.map((message) => [message.Body, keyAttribute(message)])).toEqual([[JSON.stringify({ shipped: orderId }), ids[0]]]);
      expect(reports).toEqual([expect.objectContaining({ written: 1, sent: 1, failed: 0, left: 0 })]);
      expect((await orderRow(fx.pool, orderId!)).version).toBe(1);
    });

    it('on a FIFO queue numbers a group\'s rows in order and sends them so, the id as MessageDeduplicationId', async () => {
      const orderIds = await seedOrders(fx.pool, 4);
      const { consumer, queueUrl, settings } = await shipper({ fifo: true });
      const records = orderIds.map((orderId, i) => sqsRecord({ orderId, customerId: `customer-${i % 2}` }, { groupId: `customer-${i % 2}`, key: `ship-${orderId}` }));

      await processBatch(sqsEvent(...records), lambdaContext(), settings);

      const rows = await outboxRows(fx.pool, consumer);
      expect(rows.map((row) => [row.group_id, row.group_seq])).toEqual(expect.arrayContaining([
        ['customer-0', '1'], ['customer-0', '2'], ['customer-1', '1'], ['customer-1', '2'],
      ]));
      const received = await drainMessages(local.client, queueUrl);
      expect(received).toHaveLength(4);
      for (const group of ['customer-0', 'customer-1']) {
        const sent = received.filter((message) => message.Attributes?.MessageGroupId === group);
        const written = rows.filter((row) => row.group_id === group).sort((a, b) => Number(a.group_seq) - Number(b.group_seq));
        expect(sent.map(keyAttribute)).toEqual(written.map((row) => row.id));
        expect(sent.map((message) => message.Attributes?.MessageDeduplicationId)).toEqual(written.map((row) => row.id));
      }
    });
  });

  describe('a duplicate or a rollback writes no row', () => {
    it('a redelivery is a duplicate: no second row, nothing sent again', async () => {
      const [orderId] = await seedOrders(fx.pool, 1);
      const { consumer, queueUrl, outcomes, settings } = await shipper();
      const record = sqsRecord({ orderId }, { key: `dup-${orderId}` });

      await processBatch(sqsEvent(record), lambdaContext(), settings);
      await processBatch(sqsEvent(redelivery(record), { ...redelivery(record), messageId: 'another-copy' }), lambdaContext(), settings);

      expect(outcomes.map((o) => o.kind)).toEqual(['processed', 'duplicate', 'duplicate']);
      expect(await outboxRows(fx.pool, consumer)).toHaveLength(1);
      expect(await drainMessages(local.client, queueUrl)).toHaveLength(1);
    });

    it('a handler that throws after its send rolls the row back with its effect: failed, or rejected for a PermanentError', async () => {
      const [failId, rejectId] = await seedOrders(fx.pool, 2);
      const { consumer, queueUrl, outcomes, settings } = await shipper();
      const throwing: TransactionModeOptions<Ship> = {
        ...settings,
        handle: async (order, ctx) => {
          await settings.handle(order, ctx);
          throw order.orderId === failId ? new Error('downstream hiccup') : new PermanentError('no such customer');
        },
      };

      const response = await processBatch(sqsEvent(sqsRecord({ orderId: failId }, { key: `ship-${failId}` }), sqsRecord({ orderId: rejectId }, { key: `ship-${rejectId}` })), lambdaContext(), throwing);

      expect(outcomes.map((o) => o.kind).sort()).toEqual(['failed', 'rejected']);
      expect(failedIds(response)).toHaveLength(1);
      expect(await outboxRows(fx.pool, consumer)).toEqual([]);
      expect(await drainMessages(local.client, queueUrl)).toEqual([]);
      expect((await orderRow(fx.pool, failId!)).version).toBe(0);
    });
  });

  describe('a send that fails after the commit', () => {
    it('leaves the row undispatched for the relay, with the reason, and still acknowledges the message', async () => {
      const [orderId] = await seedOrders(fx.pool, 1);
      const { consumer, reports, settings } = await shipper({ send: (order) => ({ fails: order.orderId }) });
      failing.add(JSON.stringify({ fails: orderId }));

      const response = await processBatch(sqsEvent(sqsRecord({ orderId }, { key: `ship-${orderId}` })), lambdaContext(), settings);

      expect(failedIds(response)).toEqual([]);
      const [row] = await outboxRows(fx.pool, consumer);
      expect(row).toMatchObject({ dispatched_at: null, failed_at: null, error: expect.stringContaining('InternalError') });
      expect(reports).toEqual([expect.objectContaining({ written: 1, sent: 0, failed: 0, left: 1 })]);
      expect((await orderRow(fx.pool, orderId!)).version).toBe(1);
    });
  });

  describe('a message its target can never take', () => {
    it('is refused when its row is written: the incoming message is rejected with the reason, and nothing is written', async () => {
      const [orderId] = await seedOrders(fx.pool, 1);
      const { consumer, outcomes, settings } = await shipper({ maxMessageBytes: 1024, send: () => ({ report: 'x'.repeat(2000) }) });

      const response = await processBatch(sqsEvent(sqsRecord({ orderId }, { key: `big-${orderId}` })), lambdaContext(), settings);

      expect(failedIds(response)).toEqual([]);
      expect(outcomes[0]).toMatchObject({ kind: 'rejected', error: expect.any(OutboxMessageRefusedError) });
      expect(String((outcomes[0]!.error as Error).message)).toMatch(/target "shipped": it is \d+ bytes as the target counts them, over its 1024/);
      const { rows } = await fx.pool.query('SELECT status, error FROM consumed_message WHERE consumer_name = $1', [consumer]);
      expect(rows).toEqual([{ status: 'rejected', error: expect.stringContaining('OutboxMessageRefusedError') }]);
      expect(await outboxRows(fx.pool, consumer)).toEqual([]);
      expect((await orderRow(fx.pool, orderId!)).version).toBe(0);
    });

    it('a FIFO message without a group is refused the same way', async () => {
      const [orderId] = await seedOrders(fx.pool, 1);
      const { outcomes, settings } = await shipper({ fifo: true });

      await processBatch(sqsEvent(sqsRecord({ orderId }, { key: `ship-${orderId}` })), lambdaContext(), settings);

      expect(outcomes[0]?.kind).toBe('rejected');
      expect(String((outcomes[0]!.error as Error).message)).toMatch(/no groupId, and the target is FIFO/);
    });

    it('a target the options do not name fails the message, which comes back', async () => {
      const [orderId] = await seedOrders(fx.pool, 1);
      const { consumer, outcomes, settings } = await shipper();
      // Typed options with their names inferred refuse 'shiped' at compile time (test/types/outbox-targets.test.ts); a JavaScript caller gets this.
      const misnamed: TransactionModeOptions<Ship> = { ...settings, handle: async (_order, { outbox }) => { await outbox.send({ target: 'shiped', body: 'x' }); } };

      const record = sqsRecord({ orderId }, { key: `ship-${orderId}` });
      const response = await processBatch(sqsEvent(record), lambdaContext(), misnamed);

      expect(failedIds(response)).toEqual([record.messageId]);
      expect(outcomes[0]).toMatchObject({ kind: 'failed', error: expect.any(OutboxTargetError) });
      expect((outcomes[0]!.error as Error).message).toMatch(/no outbox target "shiped"; the targets are: shipped/);
      expect(await outboxRows(fx.pool, consumer)).toEqual([]);
    });
  });
});
