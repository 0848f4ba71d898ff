import { describe, expect, it } from 'vitest';
import { PermanentError, processBatch, sql, type Database, type InboxOptions, type Outcome } from '../../functions/inbox/index.js';
import { sqlStateOf } from '../../functions/inbox/internal.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { inboxRows, orderVersions, seedOrders, uniqueConsumer } from '../support/orders.js';
import { failedIds, lambdaContext, redelivery, sqsEvent, sqsRecord } from '../support/sqs-events.js';

type Ship = { orderId: string };

describe.each(drivers)('handler failures on $name', (driver) => {
  const fx = useInboxDatabase(driver);

  const shipThen = (consumer: string, outcomes: Outcome[], after: (attempt: number) => void): InboxOptions<Ship> => {
    let attempt = 0;
    return {
      consumer, db: fx.db, onOutcome: (o) => outcomes.push(o),
      handle: async (m, { tx }) => {
        attempt += 1;
        await tx.query(sql`UPDATE orders SET version = version + 1 WHERE order_id = ${sql.uuid(m.orderId)}`);
        after(attempt);
      },
    };
  };

  describe('a handler that writes and then throws', () => {
    it('leaves no effect and no inbox row, is reported failed, and its retry applies it once', async () => {
      const consumer = uniqueConsumer('throw');
      const [orderId, otherId] = await seedOrders(fx.pool, 2);
      const outcomes: Outcome[] = [];
      const options = shipThen(consumer, outcomes, (attempt) => { if (attempt === 1) throw new Error('downstream timeout'); });
      const failing = sqsRecord({ orderId });
      const fine = sqsRecord({ orderId: otherId });

      const first = await processBatch(sqsEvent(failing, fine), lambdaContext(), { ...options, concurrency: 1 });

      expect(failedIds(first)).toEqual([failing.messageId]);
      expect(await orderVersions(fx.pool, [orderId!, otherId!])).toEqual(new Map([[orderId, 0], [otherId, 1]]));
      expect((await inboxRows(fx.pool, consumer)).has(failing.messageId)).toBe(false);
      expect(outcomes[0]).toMatchObject({ kind: 'failed', messageId: failing.messageId });
      expect((outcomes[0]?.error as Error).message).toBe('downstream timeout');

      const second = await processBatch(sqsEvent(redelivery(failing)), lambdaContext(), options);

      expect(failedIds(second)).toEqual([]);
      expect((await orderVersions(fx.pool, [orderId!])).get(orderId!)).toBe(1);
      expect(outcomes[2]?.kind).toBe('processed');
    });
  });

  describe('a handler that throws a subclass of PermanentError with a name of its own', () => {
    class OrderCancelledError extends PermanentError {
      public constructor(id: string) {
        super(`order ${id} is cancelled`);
        this.name = 'OrderCancelledError';
      }
    }

    it('is rejected with its reason, not retried', async () => {
      const consumer = uniqueConsumer('perm-sub');
      const [orderId] = await seedOrders(fx.pool, 1);
      const outcomes: Outcome[] = [];
      const record = sqsRecord({ orderId });

      const response = await processBatch(sqsEvent(record), lambdaContext(), shipThen(consumer, outcomes, () => { throw new OrderCancelledError(orderId!); }));

      expect(failedIds(response)).toEqual([]);
      expect(outcomes.map((o) => o.kind)).toEqual(['rejected']);
      expect((await inboxRows(fx.pool, consumer)).get(record.messageId)).toMatchObject({ status: 'rejected', error: `OrderCancelledError: order ${orderId} is cancelled` });
      expect((await orderVersions(fx.pool, [orderId!])).get(orderId!)).toBe(0);
    });
  });

  describe('a handler that throws PermanentError', () => {
    it('rolls back the effect, records the message as rejected with the reason, acknowledges it, and a redelivery is a duplicate', async () => {
      const consumer = uniqueConsumer('permanent');
      const [orderId] = await seedOrders(fx.pool, 1);
      const outcomes: Outcome[] = [];
      const options = shipThen(consumer, outcomes, () => { throw new PermanentError('order is cancelled'); });
      const record = sqsRecord({ orderId });

      const first = await processBatch(sqsEvent(record), lambdaContext(), options);
      const again = await processBatch(sqsEvent(redelivery(record)), lambdaContext(), options);

      expect(failedIds(first)).toEqual([]);
      expect(failedIds(again)).toEqual([]);
      expect((await orderVersions(fx.pool, [orderId!])).get(orderId!)).toBe(0);
      const row = (await inboxRows(fx.pool, consumer)).get(record.messageId);
      expect(row).toMatchObject({ status: 'rejected', error: 'PermanentError: order is cancelled' });
      expect(outcomes.map((o) => o.kind)).toEqual(['rejected', 'duplicate']);
    });
  });

  describe('a Database that throws PermanentError in statement mode', () => {
    /** The driver, with an invalid text representation (22P02: a bad uuid, say) turned into a rejection. */
    const rejectingBadInput = (db: Database): Database => ({
      ...db,
      query: async (statement) => {
        try {
          return await db.query(statement);
        } catch (error) {
          if (sqlStateOf(error) === '22P02') throw new PermanentError('not an order id');
          throw error;
        }
      },
    });

    it('rejects the message: recorded with the error, acknowledged, no effect, its redelivery a duplicate', async () => {
      const consumer = uniqueConsumer('db-permanent');
      const outcomes: Outcome[] = [];
      const record = sqsRecord({ orderId: 'not-a-uuid' });
      const options: InboxOptions<Ship> = {
        consumer, db: rejectingBadInput(fx.db), onOutcome: (o) => outcomes.push(o),
        // The cast is the database's, so the bad id is refused there (22P02), not by sql.uuid.
        statement: (m) => sql`UPDATE orders SET version = version + 1 WHERE order_id = CAST(${m.orderId} AS uuid)`,
      };

      const first = await processBatch(sqsEvent(record), lambdaContext(), options);
      const again = await processBatch(sqsEvent(redelivery(record)), lambdaContext(), options);

      expect([failedIds(first), failedIds(again)]).toEqual([[], []]);
      expect(outcomes.map((o) => o.kind)).toEqual(['rejected', 'duplicate']);
      expect((await inboxRows(fx.pool, consumer)).get(record.messageId)).toMatchObject({ status: 'rejected', error: 'PermanentError: not an order id' });
    });

    it('without the wrapper the same message fails and comes back', async () => {
      const consumer = uniqueConsumer('db-plain');
      const outcomes: Outcome[] = [];
      const record = sqsRecord({ orderId: 'not-a-uuid' });

      const response = await processBatch<Ship>(sqsEvent(record), lambdaContext(), {
        consumer, db: fx.db, onOutcome: (o) => outcomes.push(o),
        statement: (m) => sql`UPDATE orders SET version = version + 1 WHERE order_id = CAST(${m.orderId} AS uuid)`,
      });

      expect(failedIds(response)).toEqual([record.messageId]);
      expect(outcomes.map((o) => o.kind)).toEqual(['failed']);
      expect(sqlStateOf(outcomes[0]?.error)).toBe('22P02');
    });
  });

  describe('a statement builder that throws', () => {
    it('rejects on PermanentError and fails on any other error', async () => {
      const consumer = uniqueConsumer('builder');
      const outcomes: Outcome[] = [];
      const permanent = sqsRecord({ orderId: 'x', kind: 'permanent' });
      const transient = sqsRecord({ orderId: 'y', kind: 'other' });

      const response = await processBatch<{ kind: string }>(sqsEvent(permanent, transient), lambdaContext(), {
        consumer, db: fx.db, onOutcome: (o) => outcomes.push(o),
        statement: (m) => { throw m.kind === 'permanent' ? new PermanentError('no such order') : new Error('config missing'); },
      });

      expect(failedIds(response)).toEqual([transient.messageId]);
      expect((await inboxRows(fx.pool, consumer)).get(permanent.messageId)?.status).toBe('rejected');
      expect((await inboxRows(fx.pool, consumer)).has(transient.messageId)).toBe(false);
    });
  });
});
