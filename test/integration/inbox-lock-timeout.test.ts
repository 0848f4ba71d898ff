import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { processBatch, sql, type InboxOptions, type Outcome } from '../../functions/inbox/index.js';
import { payloadHash } from '../../functions/inbox/claim/payload-hash.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { orderVersions, seedOrders, uniqueConsumer } from '../support/orders.js';
import { failedIds, lambdaContext, redelivery, sqsEvent, sqsRecord } from '../support/sqs-events.js';

type Ship = { orderId: string };
const LOCK_TIMEOUT_MS = 300;

describe.each(drivers)('bounded lock waits on $name', (driver) => {
  const fx = useInboxDatabase(driver);

  const ship = (consumer: string, outcomes: Outcome[], mode: 'statement' | 'transaction'): InboxOptions<Ship> => {
    const update = (m: Ship) => sql`UPDATE orders SET version = version + 1 WHERE order_id = ${sql.uuid(m.orderId)}`;
    return mode === 'statement'
      ? { consumer, db: fx.db, lockTimeoutMs: LOCK_TIMEOUT_MS, onOutcome: (o) => outcomes.push(o), statement: update }
      : { consumer, db: fx.db, lockTimeoutMs: LOCK_TIMEOUT_MS, onOutcome: (o) => outcomes.push(o), handle: async (m, { tx }) => { await tx.query(update(m)); } };
  };

  /** Another session that holds a lock in an open transaction until released. */
  const holdLock = async (statement: string, values: unknown[]) => {
    const client = new pg.Client({ connectionString: fx.url });
    await client.connect();
    await client.query('BEGIN');
    await client.query(statement, values);
    return { release: async () => { await client.query('ROLLBACK'); await client.end(); } };
  };

  describe.each(['statement', 'transaction'] as const)('in %s mode', (mode) => {
    it('gives up a claim blocked by an in-flight claim of the same key within lock_timeout, reports it failed, and a later delivery applies it', async () => {
      const consumer = uniqueConsumer('lock');
      const [orderId] = await seedOrders(fx.pool, 1);
      const record = sqsRecord({ orderId });
      const holder = await holdLock('INSERT INTO consumed_message (consumer_name, message_id, payload_hash) VALUES ($1, $2, $3)', [consumer, record.messageId, payloadHash(record.body)]);
      const outcomes: Outcome[] = [];

      const started = Date.now();
      const response = await processBatch(sqsEvent(record), lambdaContext(), ship(consumer, outcomes, mode));
      const waited = Date.now() - started;
      await holder.release();

      expect(failedIds(response)).toEqual([record.messageId]);
      expect(outcomes[0]?.kind).toBe('failed');
      expect(waited).toBeGreaterThanOrEqual(LOCK_TIMEOUT_MS - 50);
      expect(waited).toBeLessThan(LOCK_TIMEOUT_MS + 4000);

      await processBatch(sqsEvent(redelivery(record)), lambdaContext(), ship(consumer, outcomes, mode));
      expect(outcomes[1]?.kind).toBe('processed');
      expect((await orderVersions(fx.pool, [orderId!])).get(orderId!)).toBe(1);
    });

    it('gives up an effect blocked on a row lock within lock_timeout, leaving no claim behind', async () => {
      const consumer = uniqueConsumer('rowlock');
      const [orderId] = await seedOrders(fx.pool, 1);
      const record = sqsRecord({ orderId });
      const holder = await holdLock('SELECT 1 FROM orders WHERE order_id = $1 FOR UPDATE', [orderId]);
      const outcomes: Outcome[] = [];

      const response = await processBatch(sqsEvent(record), lambdaContext(), ship(consumer, outcomes, mode));
      await holder.release();

      expect(failedIds(response)).toEqual([record.messageId]);
      expect((await fx.pool.query('SELECT 1 FROM consumed_message WHERE consumer_name = $1', [consumer])).rowCount).toBe(0);
    });
  });
});
