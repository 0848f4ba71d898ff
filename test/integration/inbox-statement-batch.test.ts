import type { SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processBatch, processKafkaBatch, sql, type Database, type Outcome, type OutcomeKind } from '../../functions/inbox/index.js';
import { pgDatabase } from '../../functions/inbox/pg/index.js';
import type { KafkaEventRecord } from '../../local/kafka/index.js';
import { freshDatabase } from '../support/database.js';
import { openDataApi } from '../support/data-api.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { kafkaEvent, kafkaRecord } from '../support/kafka-events.js';
import { createKafkaLog, kindsOf, loggedIds } from '../support/kafka-inbox.js';
import { orderVersions, seedOrders, uniqueConsumer } from '../support/orders.js';
import { lambdaContext, redelivery, sqsEvent, sqsRecord } from '../support/sqs-events.js';

/** An order to ship; `status` other than shipped breaks the orders table's CHECK, so the statement fails. */
type Ship = { orderId: string; status?: string; note?: string };

// One text for every record: a failing one differs only in its values.
const ship = (m: Ship) => sql`UPDATE orders SET status = ${m.status ?? 'shipped'}, version = version + 1 WHERE order_id = ${sql.uuid(m.orderId)}`;

function kindsIn(records: readonly SQSRecord[], outcomes: readonly Outcome[]): (OutcomeKind | undefined)[] {
  const byId = new Map(outcomes.map((o) => [o.messageId, o.kind]));
  return records.map((record) => byId.get(record.messageId));
}

describe.each(drivers)('batched statement mode on $name gives every record the outcome it has unbatched', (driver) => {
  const fx = useInboxDatabase(driver);
  // pgDatabase batches only when asked to; the Data API driver always can.
  let db: Database;
  beforeAll(() => {
    db = driver.name === 'pg' ? pgDatabase({ connectionString: fx.url, batch: true }) : fx.db;
  });
  afterAll(async () => {
    if (db !== fx.db) await db.close();
  });

  it('runs on a database that batches', () => {
    expect(db.batch).toBeTypeOf('function');
  });

  /** A wide batch with a duplicate, a collision and a failing record, run batched or not on orders of its own. */
  async function wideBatch(batchStatements: boolean) {
    const consumer = uniqueConsumer(`wide-${batchStatements}`);
    const ids = await seedOrders(fx.pool, 10);
    const outcomes: Outcome[] = [];
    const options = { consumer, db, batchStatements, statement: ship, onOutcome: (o: Outcome) => outcomes.push(o) };
    const seen = sqsRecord({ orderId: ids[0] });
    const claimed = sqsRecord({ orderId: ids[1] }, { key: 'taken-key' });
    await processBatch<Ship>(sqsEvent(seen, claimed), lambdaContext(), options);
    outcomes.length = 0;
    const records = [
      sqsRecord({ orderId: ids[2] }), redelivery(seen), sqsRecord({ orderId: ids[3] }),
      sqsRecord({ orderId: ids[1], note: 'another body' }, { key: 'taken-key' }),
      sqsRecord({ orderId: ids[4], status: 'lost' }),
      ...ids.slice(5).map((orderId) => sqsRecord({ orderId })),
    ];
    const response = await processBatch<Ship>(sqsEvent(...records), lambdaContext(), options);
    const versions = await orderVersions(fx.pool, ids);
    return { kinds: kindsIn(records, outcomes), failed: response.batchItemFailures.length, versions: ids.map((id) => versions.get(id)) };
  }

  it('on a standard queue: a duplicate, a collision and a failure among processed records', async () => {
    const batched = await wideBatch(true);

    expect(batched.kinds).toEqual(['processed', 'duplicate', 'processed', 'collision', 'failed', 'processed', 'processed', 'processed', 'processed', 'processed']);
    expect(batched.failed).toBe(1);
    expect(batched.versions).toEqual([1, 1, 1, 1, 0, 1, 1, 1, 1, 1]);
    expect(await wideBatch(false)).toEqual(batched);
  });

  /** FIFO groups: g1 has a record of another text in its middle, g2 a failing first record. */
  async function fifoBatch(batchStatements: boolean) {
    const consumer = uniqueConsumer(`fifo-${batchStatements}`);
    await createKafkaLog(fx.pool);
    const outcomes: Outcome[] = [];
    const log = (m: { label: string; fail?: boolean; other?: boolean }) => m.other
      ? sql`INSERT INTO kafka_log (consumer, topic, part, record_offset) VALUES (${consumer}, ${m.label}, 0, 0) /* another text */`
      : sql`INSERT INTO kafka_log (consumer, topic, part, record_offset) VALUES (${consumer}, ${m.label}, 0, ${m.fail ? null : 0})`;
    const records = [
      sqsRecord({ label: 'a1' }, { groupId: 'g1' }), sqsRecord({ label: 'b1', fail: true }, { groupId: 'g2' }),
      sqsRecord({ label: 'a2', other: true }, { groupId: 'g1' }), sqsRecord({ label: 'b2' }, { groupId: 'g2' }),
      sqsRecord({ label: 'a3' }, { groupId: 'g1' }), sqsRecord({ label: 'c1' }, { groupId: 'g3' }), sqsRecord({ label: 'c2' }, { groupId: 'g3' }),
    ];
    await processBatch<{ label: string; fail?: boolean; other?: boolean }>(sqsEvent(...records), lambdaContext(), {
      consumer, db, batchStatements, statement: log, onOutcome: (o) => outcomes.push(o),
    });
    const { rows } = await fx.pool.query<{ topic: string }>('SELECT topic FROM kafka_log WHERE consumer = $1 ORDER BY id', [consumer]);
    const order = rows.map((row) => row.topic);
    return { kinds: kindsIn(records, outcomes), g1: order.filter((l) => l.startsWith('a')), g3: order.filter((l) => l.startsWith('c')), b: order.filter((l) => l.startsWith('b')) };
  }

  it('on a FIFO queue: each group in its order, a failed record holding back the rest of its group', async () => {
    const batched = await fifoBatch(true);

    expect(batched).toEqual({
      kinds: ['processed', 'failed', 'processed', 'skipped', 'processed', 'processed', 'processed'],
      g1: ['a1', 'a2', 'a3'], g3: ['c1', 'c2'], b: [],
    });
    expect(await fifoBatch(false)).toEqual(batched);
  });

  /** Kafka: 3 partitions; partition 1's second record fails, partition 0 has a duplicate and partition 2 a collision. */
  async function kafkaBatch(batchStatements: boolean) {
    const consumer = uniqueConsumer(`kafka-${batchStatements}`);
    await createKafkaLog(fx.pool);
    const outcomes: Outcome[] = [];
    const topic = `t-${batchStatements}`;
    type Logged = { fail?: boolean; n?: number };
    const options = {
      consumer, db, batchStatements, onOutcome: (o: Outcome) => outcomes.push(o),
      statement: (m: Logged, { record }: { record: KafkaEventRecord }) =>
        sql`INSERT INTO kafka_log (consumer, topic, part, record_offset) VALUES (${consumer}, ${record.topic}, ${record.partition}, ${m.fail ? null : record.offset})`,
    };
    const key = (k: string) => ({ headers: { 'idempotency-key': `${consumer}-${k}` } });
    await processKafkaBatch<Logged>(kafkaEvent([
      kafkaRecord({ fail: false, n: 1 }, { topic: 'earlier', partition: 0, ...key('dup') }), kafkaRecord({ n: 1 }, { topic: 'earlier', partition: 0, ...key('col') }),
    ]), lambdaContext(), options);
    outcomes.length = 0;
    const records: KafkaEventRecord[] = [];
    for (let i = 0; i < 12; i += 1) {
      const extra = i === 3 ? key('dup') : i === 5 ? key('col') : {};
      records.push(kafkaRecord({ fail: i === 4, n: i === 5 ? 2 : 1 }, { topic, partition: i % 3, ...extra }));
    }
    const response = await processKafkaBatch<Logged>(kafkaEvent(records), lambdaContext(), options);
    const logged = (await loggedIds(fx.pool, consumer)).filter((id) => id.startsWith(topic));
    const byPartition = [0, 1, 2].map((p) => logged.filter((id) => id.includes(`-${p}@`)).map((id) => Number(id.split('@')[1])));
    return { kinds: kindsOf(records, outcomes), failures: response.batchItemFailures.length, byPartition };
  }

  it('on Kafka: a duplicate, a collision and a failure; each partition in offset order, the rest of a partition skipped after its failure', async () => {
    const batched = await kafkaBatch(true);
    const unbatched = await kafkaBatch(false);

    expect(batched.kinds).toEqual(['processed', 'processed', 'processed', 'duplicate', 'failed', 'collision', 'processed', 'skipped', 'processed', 'processed', 'skipped', 'processed']);
    for (const offsets of batched.byPartition) expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
    expect(batched.byPartition.map((offsets) => offsets.length)).toEqual([3, 1, 3]);
    expect({ kinds: unbatched.kinds, failures: unbatched.failures, logged: unbatched.byPartition.map((offsets) => offsets.length) })
      .toEqual({ kinds: batched.kinds, failures: batched.failures, logged: [3, 1, 3] });
  });
});

describe('batched statement mode on the Data API: calls a batch', () => {
  it('costs three calls for a fresh batch of one text, and a redelivered batch of duplicates four, against two a record unbatched', async () => {
    const fresh = await freshDatabase();
    const local = await openDataApi(fresh.url);
    const counts: Record<string, number> = {};
    try {
      for (const batchStatements of [true, false]) {
        const ids = await seedOrders(fresh.pool, 10);
        const records = ids.map((orderId) => sqsRecord({ orderId }));
        const options = { consumer: uniqueConsumer(`calls-${batchStatements}`), db: local.db, batchStatements, statement: ship };
        let before = local.api.stats().total;
        await processBatch<Ship>(sqsEvent(...records), lambdaContext(), options);
        counts[`fresh-${batchStatements}`] = local.api.stats().total - before;
        before = local.api.stats().total;
        const again = await processBatch<Ship>(sqsEvent(...records.map(redelivery)), lambdaContext(), options);
        counts[`again-${batchStatements}`] = local.api.stats().total - before;
        expect(again.batchItemFailures).toEqual([]);
      }
    } finally {
      await local.close();
      await fresh.close();
    }
    expect(counts).toEqual({ 'fresh-true': 3, 'again-true': 4, 'fresh-false': 10, 'again-false': 20 });
  });
});
