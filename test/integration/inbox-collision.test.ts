import { describe, expect, it, vi } from 'vitest';
import { processBatch, sql, type InboxOptions, type Outcome } from '../../functions/inbox/index.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { orderVersions, seedOrders, uniqueConsumer } from '../support/orders.js';
import { failedIds, lambdaContext, sqsEvent, sqsRecord } from '../support/sqs-events.js';

type Ship = { orderId: string };

describe.each(drivers)('key collisions on $name', (driver) => {
  const fx = useInboxDatabase(driver);

  describe.each(['statement', 'transaction'] as const)('in %s mode', (mode) => {
    it('acknowledges a known key with another body without effect, reports a collision and logs it at error level', async () => {
      const consumer = uniqueConsumer('collide');
      const [first, second] = await seedOrders(fx.pool, 2);
      const outcomes: Outcome[] = [];
      const logger = { debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() };
      const update = (m: Ship) => sql`UPDATE orders SET version = version + 1 WHERE order_id = ${sql.uuid(m.orderId)}`;
      const options: InboxOptions<Ship> = {
        consumer, db: fx.db, logger, onOutcome: (o) => outcomes.push(o),
        ...(mode === 'statement' ? { statement: update } : { handle: async (m, { tx }) => { await tx.query(update(m)); } }),
      };

      await processBatch(sqsEvent(sqsRecord({ orderId: first }, { key: 'reused' })), lambdaContext(), options);
      const response = await processBatch(sqsEvent(sqsRecord({ orderId: second }, { key: 'reused' })), lambdaContext(), options);

      expect(failedIds(response)).toEqual([]);
      expect(outcomes.map((o) => o.kind)).toEqual(['processed', 'collision']);
      expect(await orderVersions(fx.pool, [first!, second!])).toEqual(new Map([[first, 1], [second, 0]]));
      expect(logger.error).toHaveBeenCalledWith(expect.stringMatching(/different body/), expect.objectContaining({ key: 'reused', outcome: 'collision' }));
    });
  });
});
