import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { LaneBlockedError, processKafkaBatch, sql, type InboxCommonOptions, type KafkaInboxOptions, type Outcome } from '../../functions/inbox/index.js';
import type { KafkaEventRecord } from '../../local/kafka/index.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { createKafkaLog, kafkaMessageId, kindsOf, loggedIds, logStatement, redelivered } from '../support/kafka-inbox.js';
import { kafkaEvent, kafkaFailures, kafkaRecord } from '../support/kafka-events.js';
import { uniqueConsumer } from '../support/orders.js';
import { lambdaContext } from '../support/sqs-events.js';

type Step = { seq: number };

describe.each(drivers)('Kafka partitions as ordered lanes on $name', (driver) => {
  const fx = useInboxDatabase(driver);

  beforeAll(() => createKafkaLog(fx.pool));

  /** Appends each record to the log table in the claim's transaction; the offsets in `failing` throw once. */
  const logSteps = (consumer: string, outcomes: Outcome[], failing: Set<string> = new Set(), extra: Partial<InboxCommonOptions<Step, KafkaEventRecord>> = {}): KafkaInboxOptions<Step> => ({
    consumer, db: fx.db, onOutcome: (o) => outcomes.push(o),
    handle: async (_step, { tx, record }) => {
      if (failing.delete(kafkaMessageId(record))) throw new Error(`${kafkaMessageId(record)} failed`);
      await tx.query(logStatement(consumer, record));
    },
    ...extra,
  });

  const step = (partition: number, seq: number) => kafkaRecord({ seq }, { topic: 'lanes', partition });

  describe('order inside a partition', () => {
    it('commits the records of a partition one after another in offset order, every record once', async () => {
      const consumer = uniqueConsumer('korder');
      const records = [step(0, 1), step(1, 1), step(0, 2), step(1, 2), step(0, 3), step(2, 1), step(1, 3)];

      const response = await processKafkaBatch(kafkaEvent(records), lambdaContext(), logSteps(consumer, []));

      expect(response).toEqual({ batchItemFailures: [] });
      const logged = await loggedIds(fx.pool, consumer);
      for (const partition of [0, 1, 2]) {
        const inPartition = records.filter((r) => r.partition === partition).map(kafkaMessageId);
        expect(logged.filter((id) => inPartition.includes(id))).toEqual(inPartition);
      }
      expect([...logged].sort()).toEqual(records.map(kafkaMessageId).sort());
    });
  });

  describe('partitions in parallel, up to concurrency', () => {
    it.each([
      [1, 1],
      [3, 3],
      [10, 6],
    ])('concurrency %i over 6 partitions runs %i partition(s) at once and never two records of one partition', async (concurrency, expected) => {
      const consumer = uniqueConsumer('kparallel');
      const records = [0, 1, 2, 3, 4, 5].flatMap((partition) => [step(partition, 1), step(partition, 2)]);
      let inFlight = 0;
      let most = 0;
      const busy = new Set<number>();
      let overlapInPartition = false;
      let releaseFirstWave!: () => void;
      const firstWave = new Promise<'together'>((resolve) => { releaseFirstWave = () => resolve('together'); });
      const waits: string[] = [];

      const response = await processKafkaBatch<Step>(kafkaEvent(records), lambdaContext(), {
        consumer, db: fx.db, concurrency,
        handle: async (_step, { tx, record }) => {
          if (busy.has(record.partition)) overlapInPartition = true;
          busy.add(record.partition);
          inFlight += 1;
          most = Math.max(most, inFlight);
          if (inFlight === expected) releaseFirstWave();
          // The first wave waits until `expected` partitions are in flight together; a kit that ran fewer times out here.
          waits.push(await Promise.race([firstWave, sleep(3000, 'alone' as const, { ref: false })]));
          await tx.query(sql`SELECT pg_sleep(0.02)`);
          await tx.query(logStatement(consumer, record));
          inFlight -= 1;
          busy.delete(record.partition);
        },
      });

      expect(response).toEqual({ batchItemFailures: [] });
      expect(most).toBe(expected);
      expect(waits).toEqual(records.map(() => 'together'));
      expect(overlapInPartition).toBe(false);
      expect((await loggedIds(fx.pool, consumer)).length).toBe(12);
    });
  });

  describe("laneFailure: 'lane' (the default)", () => {
    it('skips the rest of the failed partition and no other partition, and reports the failed record and its followers', async () => {
      const consumer = uniqueConsumer('kgroup');
      const outcomes: Outcome[] = [];
      const p0 = [step(0, 1), step(0, 2), step(0, 3), step(0, 4)];
      const p1 = [step(1, 1), step(1, 2), step(1, 3)];
      const failing = new Set([kafkaMessageId(p0[1]!)]);

      const response = await processKafkaBatch(kafkaEvent([p0[0]!, p1[0]!, p0[1]!, p1[1]!, p0[2]!, p0[3]!, p1[2]!]), lambdaContext(), logSteps(consumer, outcomes, failing));

      expect(response).toEqual(kafkaFailures(p0[1]!, p0[2]!, p0[3]!));
      expect(kindsOf([...p0, ...p1], outcomes)).toEqual(['processed', 'failed', 'skipped', 'skipped', 'processed', 'processed', 'processed']);
      expect((await loggedIds(fx.pool, consumer)).sort()).toEqual([p0[0]!, ...p1].map(kafkaMessageId).sort());
      const skipped = outcomes.filter((o) => o.kind === 'skipped');
      expect(skipped.map((o) => o.lane)).toEqual(['lanes-0', 'lanes-0']);
      expect(skipped.map((o) => o.error instanceof LaneBlockedError && /this partition failed/.test((o.error as Error).message))).toEqual([true, true]);
    });

    it('resumes the partition in order when Lambda hands the failed record and its followers over again', async () => {
      const consumer = uniqueConsumer('kresume');
      const records = [step(0, 1), step(0, 2), step(0, 3)];
      const failing = new Set([kafkaMessageId(records[1]!)]);
      const options = logSteps(consumer, [], failing);

      const first = await processKafkaBatch(kafkaEvent(records), lambdaContext(), options);
      const resumed = await processKafkaBatch(kafkaEvent(records.slice(1).map(redelivered)), lambdaContext(), options);

      expect(first).toEqual(kafkaFailures(records[1]!, records[2]!));
      expect(resumed).toEqual({ batchItemFailures: [] });
      expect(await loggedIds(fx.pool, consumer)).toEqual(records.map(kafkaMessageId));
    });
  });

  describe("laneFailure: 'batch'", () => {
    it('skips every record not yet started, in every partition, once any record fails', async () => {
      const consumer = uniqueConsumer('kbatch');
      const outcomes: Outcome[] = [];
      const records = [step(0, 1), step(0, 2), step(1, 1), step(2, 1)];
      const failing = new Set([kafkaMessageId(records[1]!)]);

      const response = await processKafkaBatch(kafkaEvent(records), lambdaContext(), logSteps(consumer, outcomes, failing, { laneFailure: 'batch', concurrency: 1 }));

      expect(kindsOf(records, outcomes)).toEqual(['processed', 'failed', 'skipped', 'skipped']);
      expect(response).toEqual(kafkaFailures(...records.slice(1)));
      expect(await loggedIds(fx.pool, consumer)).toEqual([kafkaMessageId(records[0]!)]);
      expect(outcomes.slice(2).map((o) => (o.error as Error).message)).toEqual([
        "Not attempted: an earlier message of an ordered lane of this batch failed, and laneFailure is 'batch'.",
        "Not attempted: an earlier message of an ordered lane of this batch failed, and laneFailure is 'batch'.",
      ]);
    });
  });

  describe('a rejected, duplicate or colliding record', () => {
    it('is acknowledged and does not stop its partition', async () => {
      const consumer = uniqueConsumer('kreject');
      const outcomes: Outcome[] = [];
      const headers = { 'idempotency-key': 'k-1' };
      const records = [
        kafkaRecord({ seq: 1 }, { topic: 'lanes', headers }),
        kafkaRecord('{oops', { topic: 'lanes' }),
        kafkaRecord({ seq: 1 }, { topic: 'lanes', headers }),
        kafkaRecord({ seq: 99 }, { topic: 'lanes', headers }),
        kafkaRecord({ seq: 2 }, { topic: 'lanes' }),
      ];

      const response = await processKafkaBatch(kafkaEvent(records), lambdaContext(), logSteps(consumer, outcomes));

      expect(response).toEqual({ batchItemFailures: [] });
      expect(outcomes.map((o) => o.kind)).toEqual(['processed', 'rejected', 'duplicate', 'collision', 'processed']);
      expect(await loggedIds(fx.pool, consumer)).toEqual([records[0]!, records[4]!].map(kafkaMessageId));
    });
  });
});
