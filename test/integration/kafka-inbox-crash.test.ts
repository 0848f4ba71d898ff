import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { processKafkaBatch, type Database, type Outcome } from '../../functions/inbox/index.js';
import { InjectedCrashError, type CrashPoint } from '../../demo/crashing-handler.js';
import { crashingKafkaHandler } from '../../demo/crashing-kafka-handler.js';
import { KafkaLog, startKafkaEventSource, type KafkaHandler, type RunningKafkaEventSource } from '../../local/kafka/index.js';
import { openDataApi, type LocalDataApi } from '../support/data-api.js';
import { freshDatabase, type FreshDatabase } from '../support/database.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { MODES, shipOptions, type Mode } from '../support/kafka-inbox.js';
import { kafkaEvent, kafkaRecord } from '../support/kafka-events.js';
import { orderVersions, seedOrders, uniqueConsumer } from '../support/orders.js';
import { lambdaContext } from '../support/sqs-events.js';

const running: RunningKafkaEventSource[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((source) => source.stop()));
});

/**
 * The kit's Kafka worker on the invocation's database: the inbox under the default offset keys, a
 * statement a record (not batched), so each record is a commit point of its own.
 */
const inboxWorker = (consumer: string, mode: Mode, outcomes: Outcome[] = [], extra: Parameters<typeof shipOptions>[4] = {}) =>
  (db: Database): KafkaHandler => (event, context) => processKafkaBatch(event, context, perRecord(shipOptions(db, consumer, outcomes, mode, { concurrency: 1, ...extra })));

/** Options with statement mode's batching off (transaction mode has none to turn off). */
function perRecord<O extends object>(options: O): O {
  return { ...options, batchStatements: false };
}

/** A log whose one-partition topic `orders` holds a ship request per order. */
async function ordersLog(orderIds: readonly string[]): Promise<KafkaLog> {
  const log = new KafkaLog();
  log.createTopic('orders');
  for (const orderId of orderIds) await log.produce('orders', { key: orderId, value: JSON.stringify({ orderId }) });
  return log;
}

const eventually = (assertion: () => unknown) => vi.waitFor(assertion, { timeout: 15_000, interval: 20 });

describe.each(drivers)('a Kafka invocation of the inbox that dies at a commit point, on $name', (driver) => {
  const fx = useInboxDatabase(driver);
  const versionsOf = async (ids: readonly string[]) => {
    const versions = await orderVersions(fx.pool, [...ids]);
    return ids.map((id) => versions.get(id));
  };

  describe.each(MODES)('in %s mode', (mode) => {
    it('throws instead of answering after its third commit, so the whole batch comes back; the redelivery applies each order once', async () => {
      const orderIds = await seedOrders(fx.pool, 5);
      const records = orderIds.map((orderId) => kafkaRecord({ orderId }));
      const crashes: CrashPoint[] = [];
      const plans: (CrashPoint | undefined)[] = [{ when: 'after-commit', at: 3 }, undefined];
      const outcomes: Outcome[] = [];
      const handler = crashingKafkaHandler({
        db: fx.db,
        handler: inboxWorker(uniqueConsumer('kcrash'), mode, outcomes),
        plan: () => plans.shift(),
        onCrash: (point) => crashes.push(point),
      });

      await expect(handler(kafkaEvent(records), lambdaContext())).rejects.toBeInstanceOf(InjectedCrashError);
      const committedBeforeTheCrash = await versionsOf(orderIds);
      const again = await handler(kafkaEvent(records), lambdaContext());

      expect(crashes).toEqual([{ when: 'after-commit', at: 3 }]);
      expect(committedBeforeTheCrash).toEqual([1, 1, 1, 0, 0]);
      expect(again).toEqual({ batchItemFailures: [] });
      expect(await versionsOf(orderIds)).toEqual([1, 1, 1, 1, 1]);
      expect(outcomes.slice(-5).map((o) => o.kind)).toEqual(['duplicate', 'duplicate', 'duplicate', 'processed', 'processed']);
    });

    it.each([
      { when: 'after-commit', at: 2 },
      { when: 'before-commit', at: 2 },
    ] as const)('through the Kafka event source, a crash at %o fails the whole batch; it comes again from its first offset and each order ships once', async (point: CrashPoint) => {
      const orderIds = await seedOrders(fx.pool, 3);
      const log = await ordersLog(orderIds);
      const plans: (CrashPoint | undefined)[] = [point];
      const crashes: CrashPoint[] = [];
      const source = startKafkaEventSource({
        log,
        topic: 'orders',
        maxBatchingWindowMs: 0,
        retryDelayMs: 0,
        handler: crashingKafkaHandler({ db: fx.db, handler: inboxWorker(uniqueConsumer('ksource'), mode), plan: () => plans.shift(), onCrash: (crash) => crashes.push(crash) }),
      });
      running.push(source);

      await eventually(() => expect(source.committedOffsets()).toEqual({ 'orders-0': 3 }));

      expect(crashes).toEqual([point]);
      expect(source.stats).toMatchObject({ invocations: 2, errors: 1, redelivered: 3, committedRecords: 3 });
      expect(await versionsOf(orderIds)).toEqual([1, 1, 1]);
    });
  });
});

describe('on the Data API, a Kafka invocation that dies inside a transaction leaves it open until the idle timeout', () => {
  let fresh: FreshDatabase;
  let local: LocalDataApi;

  beforeAll(async () => {
    fresh = await freshDatabase();
    // Long enough that no retry, however late the machine runs it, comes after the rollback; the test shortens it once a retry has met the claim.
    local = await openDataApi(fresh.url, { idleTimeoutMs: 120_000 });
  });

  afterAll(async () => {
    await local.close();
    await fresh.close();
  });

  it('the retries give up on the held claim within lock_timeout instead of waiting it out, and once it is rolled back each order ships once', async () => {
    const orderIds = await seedOrders(fresh.pool, 3);
    const log = await ordersLog(orderIds);
    const plans: (CrashPoint | undefined)[] = [{ when: 'before-commit', at: 2 }];
    const outcomes: Outcome[] = [];
    const source = startKafkaEventSource({
      log,
      topic: 'orders',
      maxBatchingWindowMs: 0,
      retryDelayMs: 50,
      handler: crashingKafkaHandler({
        db: local.db,
        handler: inboxWorker(uniqueConsumer('kabandoned'), 'transaction', outcomes, { lockTimeoutMs: 100 }),
        plan: () => plans.shift(),
        openTransactions: 'abandoned',
      }),
    });
    running.push(source);

    // A retry meets the abandoned claim of the second order: it fails at lock_timeout and is reported with its follower.
    // The first order is committed past; the retries stop at the second for as long as its claim is held.
    await eventually(() => expect({ partialBatches: source.stats.partialBatches >= 1, committed: source.committedOffsets() }).toEqual({ partialBatches: true, committed: { 'orders-0': 1 } }));
    local.api.setIdleTimeout(500);
    await eventually(() => expect(source.committedOffsets()).toEqual({ 'orders-0': 3 }));

    const versions = await orderVersions(fresh.pool, orderIds);
    expect(orderIds.map((id) => versions.get(id))).toEqual([1, 1, 1]);
    expect(source.stats.errors).toBe(1);
    const failed = outcomes.filter((o) => o.kind === 'failed').map((o) => o.messageId);
    expect(failed.length).toBeGreaterThanOrEqual(1);
    expect(new Set(failed)).toEqual(new Set(['orders-0@1']));
    expect(outcomes.filter((o) => o.kind === 'processed').map((o) => o.messageId).sort()).toEqual(['orders-0@0', 'orders-0@1', 'orders-0@2']);
    expect(local.api.stats().openTransactions).toBe(0);
  });
});
