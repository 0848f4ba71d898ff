import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { processKafkaBatch, type Outcome } from '../../functions/inbox/index.js';
import { payloadHash } from '../../functions/inbox/claim/payload-hash.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { kindsOf, MODES, offsetKey, redelivered, shipOptions } from '../support/kafka-inbox.js';
import { kafkaEvent, kafkaFailures, kafkaRecord } from '../support/kafka-events.js';
import { orderVersions, seedOrders, uniqueConsumer } from '../support/orders.js';
import { lambdaContext } from '../support/sqs-events.js';

const LOCK_TIMEOUT_MS = 300;

describe.each(drivers)('Kafka bounded lock waits on $name', (driver) => {
  const fx = useInboxDatabase(driver);

  /** Another session that holds a lock in an open transaction until released. */
  const holdLock = async (statement: string, values: unknown[]) => {
    const client = new pg.Client({ connectionString: fx.url });
    await client.connect();
    await client.query('BEGIN');
    await client.query(statement, values);
    return { release: async () => { await client.query('ROLLBACK'); await client.end(); } };
  };

  describe.each(MODES)('in %s mode', (mode) => {
    it('gives up a claim blocked by an in-flight claim of the same key within lock_timeout, reports it and its followers, and a later delivery applies them', async () => {
      const consumer = uniqueConsumer('klock');
      const [blockedId, followerId, otherId] = await seedOrders(fx.pool, 3);
      const blocked = kafkaRecord({ orderId: blockedId }, { partition: 0 });
      const follower = kafkaRecord({ orderId: followerId }, { partition: 0 });
      const other = kafkaRecord({ orderId: otherId }, { partition: 1 });
      const holder = await holdLock('INSERT INTO consumed_message (consumer_name, message_id, payload_hash) VALUES ($1, $2, $3)',
        [consumer, offsetKey(blocked), payloadHash(Buffer.from(blocked.value, 'base64'))]);
      const outcomes: Outcome[] = [];
      const options = shipOptions(fx.db, consumer, outcomes, mode, { lockTimeoutMs: LOCK_TIMEOUT_MS });

      const started = Date.now();
      const response = await processKafkaBatch(kafkaEvent([blocked, follower, other]), lambdaContext(), options);
      const waited = Date.now() - started;
      await holder.release();

      expect(response).toEqual(kafkaFailures(blocked, follower));
      expect(kindsOf([blocked, follower, other], outcomes)).toEqual(['failed', 'skipped', 'processed']);
      expect(waited).toBeGreaterThanOrEqual(LOCK_TIMEOUT_MS - 50);
      expect(waited).toBeLessThan(LOCK_TIMEOUT_MS + 4000);
      expect(await orderVersions(fx.pool, [blockedId!, followerId!, otherId!])).toEqual(new Map([[blockedId, 0], [followerId, 0], [otherId, 1]]));

      const resumed = await processKafkaBatch(kafkaEvent([redelivered(blocked), redelivered(follower)]), lambdaContext(), options);

      expect(resumed).toEqual({ batchItemFailures: [] });
      expect(outcomes.slice(3).map((o) => o.kind)).toEqual(['processed', 'processed']);
      expect(await orderVersions(fx.pool, [blockedId!, followerId!, otherId!])).toEqual(new Map([[blockedId, 1], [followerId, 1], [otherId, 1]]));
    });

    it('gives up an effect blocked on a row lock within lock_timeout, leaving no claim behind', async () => {
      const consumer = uniqueConsumer('krowlock');
      const [orderId] = await seedOrders(fx.pool, 1);
      const record = kafkaRecord({ orderId });
      const holder = await holdLock('SELECT 1 FROM orders WHERE order_id = $1 FOR UPDATE', [orderId]);
      const outcomes: Outcome[] = [];

      const started = Date.now();
      const response = await processKafkaBatch(kafkaEvent([record]), lambdaContext(), shipOptions(fx.db, consumer, outcomes, mode, { lockTimeoutMs: LOCK_TIMEOUT_MS }));
      const waited = Date.now() - started;
      await holder.release();

      expect(response).toEqual(kafkaFailures(record));
      expect(outcomes.map((o) => o.kind)).toEqual(['failed']);
      expect(waited).toBeLessThan(LOCK_TIMEOUT_MS + 4000);
      expect((await fx.pool.query('SELECT 1 FROM consumed_message WHERE consumer_name = $1', [consumer])).rowCount).toBe(0);
      expect((await orderVersions(fx.pool, [orderId!])).get(orderId!)).toBe(0);
    });
  });
});
