import { describe, expect, it } from 'vitest';
import { processBatch, sql, type InboxOptions, type Outcome } from '../../functions/inbox/index.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { orderVersions, seedOrders, uniqueConsumer } from '../support/orders.js';
import { failedIds, lambdaContext, redelivery, sqsEvent, sqsRecord } from '../support/sqs-events.js';

type Ship = { orderId: string };

describe.each(drivers)('concurrent deliveries of one message on $name', (driver) => {
  const fx = useInboxDatabase(driver);

  const slowShip = (consumer: string, db: InboxOptions<Ship>['db'], outcomes: Outcome[], mode: 'statement' | 'transaction'): InboxOptions<Ship> => (
    mode === 'statement'
      ? {
          consumer, db, onOutcome: (o) => outcomes.push(o),
          statement: (m) => sql`UPDATE orders SET version = version + 1 WHERE order_id = ${sql.uuid(m.orderId)} AND (SELECT true FROM pg_sleep(0.3))`,
        }
      : {
          consumer, db, onOutcome: (o) => outcomes.push(o),
          handle: async (m, { tx }) => {
            await tx.query(sql`UPDATE orders SET version = version + 1 WHERE order_id = ${sql.uuid(m.orderId)}`);
            await tx.query(sql`SELECT pg_sleep(0.3)`);
          },
        });

  describe.each(['statement', 'transaction'] as const)('in %s mode', (mode) => {
    it('never applies the effect twice when two invocations on two connections race; the loser becomes a duplicate on retry', async () => {
      const other = await fx.openAnother();
      const consumer = uniqueConsumer('race');
      const ids = await seedOrders(fx.pool, 5);
      const records = ids.map((orderId) => sqsRecord({ orderId }));
      const outcomesA: Outcome[] = [];
      const outcomesB: Outcome[] = [];

      const [a, b] = await Promise.all([
        processBatch(sqsEvent(...records), lambdaContext(), slowShip(consumer, fx.db, outcomesA, mode)),
        processBatch(sqsEvent(...records.map(redelivery)), lambdaContext(), slowShip(consumer, other, outcomesB, mode)),
      ]);

      expect([...(await orderVersions(fx.pool, ids)).values()]).toEqual(ids.map(() => 1));
      const all = [...outcomesA, ...outcomesB];
      expect(all).toHaveLength(10);
      expect(all.filter((o) => o.kind === 'processed').map((o) => o.messageId).sort()).toEqual(records.map((r) => r.messageId).sort());
      expect(all.filter((o) => o.kind !== 'processed' && o.kind !== 'duplicate' && o.kind !== 'failed')).toEqual([]);

      // Whatever failed comes back; SQS redelivers it and it is seen as a duplicate.
      const retried = [...failedIds(a), ...failedIds(b)];
      expect(retried).toHaveLength(all.filter((o) => o.kind === 'failed').length);
      const retryOutcomes: Outcome[] = [];
      const retry = await processBatch(sqsEvent(...records.filter((r) => retried.includes(r.messageId)).map(redelivery)), lambdaContext(), slowShip(consumer, fx.db, retryOutcomes, mode));
      expect(failedIds(retry)).toEqual([]);
      expect(retryOutcomes.map((o) => o.kind)).toEqual(retried.map(() => 'duplicate'));
      expect([...(await orderVersions(fx.pool, ids)).values()]).toEqual(ids.map(() => 1));
    });
  });
});
