import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { processBatch, processKafkaBatch, sql, type Database, type InboxOptions, type KafkaInboxOptions } from '../../functions/inbox/index.js';
import { crashingHandler } from '../../demo/crashing-handler.js';
import { crashingKafkaHandler } from '../../demo/crashing-kafka-handler.js';
import { openDataApi, type LocalDataApi } from '../support/data-api.js';
import { kafkaEvent, kafkaRecord } from '../support/kafka-events.js';
import { freshDatabase, type FreshDatabase } from '../support/database.js';
import { orderVersions, seedOrders, uniqueConsumer } from '../support/orders.js';
import { lambdaContext, sqsEvent, sqsRecord } from '../support/sqs-events.js';

const ship = (orderId: string) => sql`UPDATE orders SET version = version + 1 WHERE order_id = ${sql.uuid(orderId)}`;
const INVOCATION_MS = 800;

describe('on the Data API, a claim a dead invocation left open is released by its deadline, not by the service\'s 3-minute idle timeout', () => {
  let fresh: FreshDatabase;
  let local: LocalDataApi;

  beforeAll(async () => {
    fresh = await freshDatabase();
    // The service's own idle timeout: the abandoned transaction must end well before it.
    local = await openDataApi(fresh.url, { idleTimeoutMs: 180_000 });
  });

  afterAll(async () => {
    await local.close();
    await fresh.close();
  });

  it('ends the transaction once the invocation\'s time is up, so the redelivery claims the message and applies it once', async () => {
    const [orderId] = await seedOrders(fresh.pool, 1);
    const consumer = uniqueConsumer('dead-claim');
    const record = sqsRecord({ orderId }, { key: `ship-${orderId}` });
    const worker = (db: Database): InboxOptions<{ orderId: string }> => ({
      consumer,
      db,
      lockTimeoutMs: 200,
      deadlineMarginMs: 0,
      handle: async (order, { tx }) => {
        await tx.query(ship(order.orderId));
      },
    });
    // Dies right before its commit, leaving the claim's transaction open: nothing sends a rollback.
    const dying = crashingHandler({ db: local.db, worker, plan: () => ({ when: 'before-commit', at: 1 }), openTransactions: 'abandoned' });

    await expect(dying(sqsEvent(record), lambdaContext(INVOCATION_MS))).rejects.toThrow('injected crash');
    expect(local.api.stats().openTransactions).toBe(1);
    // A few seconds, where the service alone would keep it 3 minutes.
    await vi.waitFor(() => expect(local.api.stats().openTransactions).toBe(0), { timeout: INVOCATION_MS + 5000, interval: 50 });

    const again = await processBatch(sqsEvent(record), lambdaContext(), worker(local.db));

    expect(again.batchItemFailures).toEqual([]);
    expect(await orderVersions(fresh.pool, [orderId!])).toEqual(new Map([[orderId, 1]]));
  });

  it('does the same for a Kafka record: the retry from its offset claims it and applies it once', async () => {
    const [orderId] = await seedOrders(fresh.pool, 1);
    const consumer = uniqueConsumer('dead-claim-kafka');
    const record = kafkaRecord({ orderId }, { topic: `dead-${consumer}` });
    const worker = (db: Database): KafkaInboxOptions<{ orderId: string }> => ({
      consumer,
      db,
      lockTimeoutMs: 200,
      deadlineMarginMs: 0,
      handle: async (order, { tx }) => {
        await tx.query(ship(order.orderId));
      },
    });
    const dying = crashingKafkaHandler({
      db: local.db,
      handler: (db) => (event, context) => processKafkaBatch(event, context, worker(db)),
      plan: () => ({ when: 'before-commit', at: 1 }),
      openTransactions: 'abandoned',
    });

    await expect(dying(kafkaEvent([record]), lambdaContext(INVOCATION_MS))).rejects.toThrow('injected crash');
    expect(local.api.stats().openTransactions).toBe(1);
    await vi.waitFor(() => expect(local.api.stats().openTransactions).toBe(0), { timeout: INVOCATION_MS + 5000, interval: 50 });

    const again = await processKafkaBatch(kafkaEvent([record]), lambdaContext(), worker(local.db));

    expect(again.batchItemFailures).toEqual([]);
    expect(await orderVersions(fresh.pool, [orderId!])).toEqual(new Map([[orderId, 1]]));
  });
});
