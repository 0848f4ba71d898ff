import { describe, expect, it } from 'vitest';
import { processBatch, sql, type InboxOptions, type Outcome } from '../../functions/inbox/index.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { inboxRows, orderVersions, seedOrders, uniqueConsumer } from '../support/orders.js';
import { failedIds, lambdaContext, redelivery, sqsEvent, sqsRecord } from '../support/sqs-events.js';

type Ship = { orderId: string };

describe.each(drivers)('consumer redelivery on $name', (driver) => {
  const fx = useInboxDatabase(driver);

  const modes: Record<string, (consumer: string, outcomes: Outcome[]) => InboxOptions<Ship>> = {
    'statement mode': (consumer, outcomes) => ({
      consumer, db: fx.db, onOutcome: (o) => outcomes.push(o),
      statement: (m) => sql`UPDATE orders SET status = 'shipped', version = version + 1 WHERE order_id = ${sql.uuid(m.orderId)}`,
    }),
    'transaction mode': (consumer, outcomes) => ({
      consumer, db: fx.db, onOutcome: (o) => outcomes.push(o),
      handle: async (m, { tx }) => {
        await tx.query(sql`UPDATE orders SET status = 'shipped', version = version + 1 WHERE order_id = ${sql.uuid(m.orderId)}`);
      },
    }),
  };

  describe.each(Object.entries(modes))('in %s', (_mode, optionsFor) => {
    it('applies a message delivered twice in one batch and again in a later batch exactly once, acknowledging every delivery', async () => {
      const consumer = uniqueConsumer('dup');
      const [orderId] = await seedOrders(fx.pool, 1);
      const first = sqsRecord({ orderId });
      const outcomes: Outcome[] = [];
      const options = optionsFor(consumer, outcomes);

      const batch1 = await processBatch(sqsEvent(first, redelivery(first)), lambdaContext(), options);
      const batch2 = await processBatch(sqsEvent(redelivery(first)), lambdaContext(), options);

      expect(failedIds(batch1)).toEqual([]);
      expect(failedIds(batch2)).toEqual([]);
      expect((await orderVersions(fx.pool, [orderId!])).get(orderId!)).toBe(1);
      expect(outcomes.map((o) => o.kind).sort()).toEqual(['duplicate', 'duplicate', 'processed']);
      expect((await inboxRows(fx.pool, consumer)).get(first.messageId)?.status).toBe('processed');
    });

    it('treats a producer retry (new messageId, same idempotency key) as a duplicate', async () => {
      const consumer = uniqueConsumer('retry');
      const [orderId] = await seedOrders(fx.pool, 1);
      const outcomes: Outcome[] = [];
      const options = optionsFor(consumer, outcomes);

      await processBatch(sqsEvent(sqsRecord({ orderId }, { key: `ship-${orderId}` })), lambdaContext(), options);
      await processBatch(sqsEvent(sqsRecord({ orderId }, { key: `ship-${orderId}` })), lambdaContext(), options);

      expect((await orderVersions(fx.pool, [orderId!])).get(orderId!)).toBe(1);
      expect(outcomes.map((o) => o.kind)).toEqual(['processed', 'duplicate']);
      expect(outcomes[1]?.key).toBe(`ship-${orderId}`);
    });

    it('keys by MessageDeduplicationId when no idempotency-key attribute is set', async () => {
      const consumer = uniqueConsumer('dedup');
      const [orderId] = await seedOrders(fx.pool, 1);
      const outcomes: Outcome[] = [];
      const options = optionsFor(consumer, outcomes);

      await processBatch(sqsEvent(sqsRecord({ orderId }, { groupId: 'g', deduplicationId: 'd-1' })), lambdaContext(), options);
      await processBatch(sqsEvent(sqsRecord({ orderId }, { groupId: 'g', deduplicationId: 'd-1' })), lambdaContext(), options);

      expect(outcomes.map((o) => [o.kind, o.key])).toEqual([['processed', 'd-1'], ['duplicate', 'd-1']]);
      expect((await orderVersions(fx.pool, [orderId!])).get(orderId!)).toBe(1);
    });

    it('processes many distinct messages of one batch concurrently, each once', async () => {
      const consumer = uniqueConsumer('many');
      const ids = await seedOrders(fx.pool, 10);
      const outcomes: Outcome[] = [];
      const records = ids.map((orderId) => sqsRecord({ orderId }));

      const response = await processBatch(sqsEvent(...records, ...records.map(redelivery)), lambdaContext(), { ...optionsFor(consumer, outcomes), concurrency: 5 });

      expect(failedIds(response)).toEqual([]);
      expect([...(await orderVersions(fx.pool, ids)).values()]).toEqual(ids.map(() => 1));
      expect(outcomes.filter((o) => o.kind === 'processed')).toHaveLength(10);
      expect(outcomes.filter((o) => o.kind === 'duplicate')).toHaveLength(10);
    });
  });
});
