import { describe, expect, it } from 'vitest';
import { DeadlineError, processKafkaBatch, sql, type Outcome, type Transaction } from '../../functions/inbox/index.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { kindsOf, shipOptions, shipStatement } from '../support/kafka-inbox.js';
import { kafkaEvent, kafkaFailures, kafkaRecord } from '../support/kafka-events.js';
import { orderVersions, seedOrders, uniqueConsumer } from '../support/orders.js';
import { lambdaContext } from '../support/sqs-events.js';

type Pair = { first: string; second: string };

describe.each(drivers)('Kafka in-place retries and the deadline on $name', (driver) => {
  const fx = useInboxDatabase(driver);

  describe('a deadlock between records of two partitions of one batch', () => {
    it('is retried in place: both records end processed, each effect applied once', async () => {
      const consumer = uniqueConsumer('kdeadlock');
      const [a, b] = await seedOrders(fx.pool, 2);
      const outcomes: Outcome[] = [];
      let attempts = 0;
      let arrived = 0;
      let bothHoldFirstLock!: () => void;
      const barrier = new Promise<void>((resolve) => { bothHoldFirstLock = resolve; });
      const bump = (tx: Transaction, id: string) => tx.query(shipStatement(id));

      const response = await processKafkaBatch<Pair>(
        kafkaEvent([kafkaRecord({ first: a, second: b }, { partition: 0 }), kafkaRecord({ first: b, second: a }, { partition: 1 })]),
        lambdaContext(),
        {
          consumer, db: fx.db, concurrency: 2, onOutcome: (o) => outcomes.push(o),
          handle: async (pair, { tx }) => {
            attempts += 1;
            await bump(tx, pair.first);
            arrived += 1;
            if (arrived === 2) bothHoldFirstLock();
            await barrier;
            await bump(tx, pair.second);
          },
        },
      );

      expect(response).toEqual({ batchItemFailures: [] });
      expect(outcomes.map((o) => o.kind)).toEqual(['processed', 'processed']);
      expect(attempts).toBe(3);
      expect(await orderVersions(fx.pool, [a!, b!])).toEqual(new Map([[a, 2], [b, 2]]));
    });
  });

  describe('a serialization failure', () => {
    it('is retried in place until the retries run out, then reported by its identifier with the rest of its partition', async () => {
      const consumer = uniqueConsumer('kserial');
      const outcomes: Outcome[] = [];
      let attempts = 0;
      const records = [kafkaRecord({ n: 1 }), kafkaRecord({ n: 2 })];

      const response = await processKafkaBatch<{ n: number }>(kafkaEvent(records), lambdaContext(), {
        consumer, db: fx.db, maxRetries: 2, onOutcome: (o) => outcomes.push(o),
        handle: async (_m, { tx }) => {
          attempts += 1;
          await tx.query(sql`DO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = 'serialization_failure'; END $$`);
        },
      });

      expect(attempts).toBe(3);
      expect(response).toEqual(kafkaFailures(...records));
      expect(kindsOf(records, outcomes)).toEqual(['failed', 'skipped']);
    });
  });

  describe('the deadline margin', () => {
    it('does not start a record when the remaining time is under the margin, and reports it for redelivery', async () => {
      const consumer = uniqueConsumer('kdeadline');
      const ids = await seedOrders(fx.pool, 2);
      const outcomes: Outcome[] = [];
      const records = ids.map((orderId, i) => kafkaRecord({ orderId }, { partition: i }));

      const response = await processKafkaBatch(kafkaEvent(records), lambdaContext(4_000), shipOptions(fx.db, consumer, outcomes, 'statement'));

      expect(response).toEqual(kafkaFailures(...records));
      expect(outcomes.map((o) => [o.kind, o.error instanceof DeadlineError])).toEqual([['skipped', true], ['skipped', true]]);
      expect([...(await orderVersions(fx.pool, ids)).values()]).toEqual([0, 0]);
    });

    it('stops starting records once the margin is reached mid-partition', async () => {
      const consumer = uniqueConsumer('kmidway');
      const outcomes: Outcome[] = [];
      const records = [kafkaRecord({ n: 1 }), kafkaRecord({ n: 2 })];

      const response = await processKafkaBatch(kafkaEvent(records), lambdaContext(1_200), {
        consumer, db: fx.db, deadlineMarginMs: 1_000, onOutcome: (o) => outcomes.push(o),
        handle: async (_m, { tx }) => { await tx.query(sql`SELECT pg_sleep(0.4)`); },
      });

      expect(outcomes.map((o) => o.kind)).toEqual(['processed', 'skipped']);
      expect(outcomes[1]?.error).toBeInstanceOf(DeadlineError);
      expect(response).toEqual(kafkaFailures(records[1]!));
    });
  });
});
