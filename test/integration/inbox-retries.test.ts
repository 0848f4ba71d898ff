import { describe, expect, it } from 'vitest';
import { DeadlineError, processBatch, sql, type Outcome, type Transaction } from '../../functions/inbox/index.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { orderVersions, seedOrders, uniqueConsumer } from '../support/orders.js';
import { failedIds, lambdaContext, sqsEvent, sqsRecord } from '../support/sqs-events.js';

type Pair = { first: string; second: string };

describe.each(drivers)('in-place retries and the deadline on $name', (driver) => {
  const fx = useInboxDatabase(driver);

  describe('a deadlock between two messages of one batch', () => {
    it('is retried in place: both messages end processed, each effect applied once', async () => {
      const consumer = uniqueConsumer('deadlock');
      const [a, b] = await seedOrders(fx.pool, 2);
      const outcomes: Outcome[] = [];
      let attempts = 0;
      let arrived = 0;
      let bothHoldFirstLock!: () => void;
      const barrier = new Promise<void>((resolve) => { bothHoldFirstLock = resolve; });
      const bump = (tx: Transaction, id: string) => tx.query(sql`UPDATE orders SET version = version + 1 WHERE order_id = ${sql.uuid(id)}`);

      const response = await processBatch<Pair>(
        sqsEvent(sqsRecord({ first: a, second: b }), sqsRecord({ first: b, second: a })),
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

      expect(failedIds(response)).toEqual([]);
      expect(outcomes.map((o) => o.kind)).toEqual(['processed', 'processed']);
      expect(attempts).toBe(3);
      expect(await orderVersions(fx.pool, [a!, b!])).toEqual(new Map([[a, 2], [b, 2]]));
    });
  });

  describe('a serialization failure', () => {
    it('is retried in place until the retries run out, then reported failed', async () => {
      const consumer = uniqueConsumer('serial');
      const outcomes: Outcome[] = [];
      let attempts = 0;
      const record = sqsRecord({ n: 1 });

      const response = await processBatch(sqsEvent(record), lambdaContext(), {
        consumer, db: fx.db, maxRetries: 2, onOutcome: (o) => outcomes.push(o),
        handle: async (_m, { tx }) => {
          attempts += 1;
          await tx.query(sql`DO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = 'serialization_failure'; END $$`);
        },
      });

      expect(attempts).toBe(3);
      expect(failedIds(response)).toEqual([record.messageId]);
      expect(outcomes[0]?.kind).toBe('failed');
    });
  });

  describe('the deadline margin', () => {
    it('does not start a message when the remaining time is under the margin, and reports it for redelivery', async () => {
      const consumer = uniqueConsumer('deadline');
      const ids = await seedOrders(fx.pool, 2);
      const outcomes: Outcome[] = [];
      const records = ids.map((orderId) => sqsRecord({ orderId }));

      const response = await processBatch<{ orderId: string }>(sqsEvent(...records), lambdaContext(4_000), {
        consumer, db: fx.db, onOutcome: (o) => outcomes.push(o),
        statement: (m) => sql`UPDATE orders SET version = version + 1 WHERE order_id = ${sql.uuid(m.orderId)}`,
      });

      expect(failedIds(response)).toEqual(records.map((r) => r.messageId));
      expect(outcomes.map((o) => [o.kind, o.error instanceof DeadlineError])).toEqual([['skipped', true], ['skipped', true]]);
      expect([...(await orderVersions(fx.pool, ids)).values()]).toEqual([0, 0]);
    });

    it('stops starting messages once the margin is reached mid-batch', async () => {
      const consumer = uniqueConsumer('midway');
      const outcomes: Outcome[] = [];
      const records = [sqsRecord({ n: 1 }, { groupId: 'g' }), sqsRecord({ n: 2 }, { groupId: 'g' })];

      const response = await processBatch(sqsEvent(...records), lambdaContext(1_200), {
        consumer, db: fx.db, deadlineMarginMs: 1_000, onOutcome: (o) => outcomes.push(o),
        handle: async (_m, { tx }) => { await tx.query(sql`SELECT pg_sleep(0.4)`); },
      });

      expect(outcomes.map((o) => o.kind)).toEqual(['processed', 'skipped']);
      expect(failedIds(response)).toEqual([records[1]!.messageId]);
    });
  });
});
