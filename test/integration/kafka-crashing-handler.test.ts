import { afterEach, describe, expect, it, vi } from 'vitest';
import { sql, type Database } from '../../functions/inbox/index.js';
import type { CrashPoint } from '../../demo/crashing-handler.js';
import { crashingKafkaHandler } from '../../demo/crashing-kafka-handler.js';
import { KafkaLog, startKafkaEventSource, type KafkaHandler, type RunningKafkaEventSource } from '../../local/kafka/index.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { eventRecords, recordValue } from '../support/kafka-events.js';
import { orderVersions, seedOrders } from '../support/orders.js';

const running: RunningKafkaEventSource[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((source) => source.stop()));
});

// A worker with no inbox: each record ships its order in a transaction of its own, so a redelivery ships it again.
const shipEach = (db: Database): KafkaHandler => async (event) => {
  for (const record of eventRecords(event)) {
    await db.transaction((tx) => tx.query(sql`UPDATE orders SET version = version + 1 WHERE order_id = ${sql.uuid(recordValue(record))}`));
  }
};

describe.each(drivers)('an invocation of the Kafka event source that dies at a commit point, on $name', (driver) => {
  const fx = useInboxDatabase(driver);

  it.each([
    [{ when: 'after-commit', at: 2 }, [2, 2, 1]],
    [{ when: 'before-commit', at: 2 }, [2, 1, 1]],
  ] as const)('at %o fails the whole batch, which comes again from its first offset: versions %j', async (point: CrashPoint, versions) => {
    const orderIds = await seedOrders(fx.pool, 3);
    const log = new KafkaLog();
    log.createTopic('orders');
    for (const orderId of orderIds) await log.produce('orders', { key: orderId, value: orderId });
    const plans: (CrashPoint | undefined)[] = [point];
    const crashes: CrashPoint[] = [];
    const source = startKafkaEventSource({
      log,
      topic: 'orders',
      maxBatchingWindowMs: 0,
      retryDelayMs: 0,
      handler: crashingKafkaHandler({ db: fx.db, handler: shipEach, plan: () => plans.shift(), onCrash: (crash) => crashes.push(crash) }),
    });
    running.push(source);
    await vi.waitFor(() => expect(source.committedOffsets()).toEqual({ 'orders-0': 3 }), { timeout: 10_000, interval: 20 });

    expect(crashes).toEqual([point]);
    expect(source.stats).toMatchObject({ invocations: 2, errors: 1, redelivered: 3 });
    const shipped = await orderVersions(fx.pool, orderIds);
    expect(orderIds.map((id) => shipped.get(id))).toEqual(versions);
  });
});
