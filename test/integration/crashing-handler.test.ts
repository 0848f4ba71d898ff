import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from '../../functions/inbox/index.js';
import { pgDatabase } from '../../functions/inbox/pg/index.js';
import { shipOrderOptions } from '../../functions/order-worker/ship-order.js';
import { crashingHandler, dyingDatabase, FunctionTimeoutError, InjectedCrashError, type CrashPoint } from '../../demo/crashing-handler.js';
import { openDataApi, type LocalDataApi } from '../support/data-api.js';
import { freshDatabase, type FreshDatabase } from '../support/database.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { orderVersions, seedOrders } from '../support/orders.js';
import { lambdaContext, sqsEvent, sqsRecord } from '../support/sqs-events.js';

const ship = (orderId: string) => sql`UPDATE orders SET version = version + 1 WHERE order_id = ${sql.uuid(orderId)}`;

describe.each(drivers)('an invocation that dies at a commit point, on $name', (driver) => {
  const fx = useInboxDatabase(driver);
  const version = async (orderId: string) => (await orderVersions(fx.pool, [orderId])).get(orderId);

  describe('a transaction', () => {
    it('dying before its commit rolls it back, and every later call of the invocation throws', async () => {
      const [orderId] = await seedOrders(fx.pool, 1);
      const dying = dyingDatabase(fx.db, { when: 'before-commit', at: 1 });

      await expect(dying.db.transaction((tx) => tx.query(ship(orderId!)))).rejects.toBeInstanceOf(InjectedCrashError);

      await expect(dying.death).rejects.toBeInstanceOf(InjectedCrashError);
      expect(await version(orderId!)).toBe(0);
      await expect(dying.db.query(ship(orderId!))).rejects.toBeInstanceOf(InjectedCrashError);
      expect(await version(orderId!)).toBe(0);
    });

    it('dying after its commit keeps the effect, but the caller never hears of it', async () => {
      const [orderId] = await seedOrders(fx.pool, 1);
      const dying = dyingDatabase(fx.db, { when: 'after-commit', at: 1 });

      await expect(dying.db.transaction((tx) => tx.query(ship(orderId!)))).rejects.toBeInstanceOf(InjectedCrashError);

      await expect(dying.death).rejects.toBeInstanceOf(InjectedCrashError);
      expect(await version(orderId!)).toBe(1);
    });
  });

  describe('an autocommitted statement', () => {
    it('dying before it commits never applies it; dying after applies it and throws', async () => {
      const [before, after] = await seedOrders(fx.pool, 2);

      await expect(dyingDatabase(fx.db, { when: 'before-commit', at: 1 }).db.query(ship(before!))).rejects.toBeInstanceOf(InjectedCrashError);
      await expect(dyingDatabase(fx.db, { when: 'after-commit', at: 1 }).db.query(ship(after!))).rejects.toBeInstanceOf(InjectedCrashError);

      expect(await version(before!)).toBe(0);
      expect(await version(after!)).toBe(1);
    });
  });

  describe('the commit point', () => {
    it('is counted across statements and transactions: the invocation lives until the one planned', async () => {
      const ids = await seedOrders(fx.pool, 3);
      const dying = dyingDatabase(fx.db, { when: 'after-commit', at: 3 });

      await dying.db.query(ship(ids[0]!));
      await dying.db.transaction((tx) => tx.query(ship(ids[1]!)));
      await expect(dying.db.query(ship(ids[2]!))).rejects.toBeInstanceOf(InjectedCrashError);

      expect([...(await orderVersions(fx.pool, ids)).values()]).toEqual([1, 1, 1]);
    });

    it('never comes without a plan, and closing the invocation leaves the shared database open', async () => {
      const [orderId] = await seedOrders(fx.pool, 1);
      const living = dyingDatabase(fx.db, undefined);

      await living.db.query(ship(orderId!));
      await living.db.close();

      await expect(fx.db.query(sql`SELECT 1 AS one`)).resolves.toMatchObject({ rows: [{ one: 1 }] });
      expect(await version(orderId!)).toBe(1);
    });
  });

  describe('crashingHandler', () => {
    it('throws instead of answering, so the whole batch comes back; the redelivery applies each order once', async () => {
      const orderIds = await seedOrders(fx.pool, 5);
      const records = orderIds.map((orderId) => sqsRecord({ orderId }, { key: `ship-${orderId}` }));
      const crashes: CrashPoint[] = [];
      const plans: (CrashPoint | undefined)[] = [{ when: 'after-commit', at: 3 }, undefined];
      const handler = crashingHandler({
        db: fx.db,
        // A statement a message: five commit points.
        worker: (db) => ({ ...shipOrderOptions(db), consumer: `crash-${driver.name}`, concurrency: 1, batchStatements: false }),
        plan: () => plans.shift(),
        onCrash: (point) => crashes.push(point),
      });

      await expect(handler(sqsEvent(...records), lambdaContext())).rejects.toBeInstanceOf(InjectedCrashError);
      const committedBeforeTheCrash = [...(await orderVersions(fx.pool, orderIds)).values()].filter((v) => v === 1).length;
      const again = await handler(sqsEvent(...records), lambdaContext());

      expect(crashes).toEqual([{ when: 'after-commit', at: 3 }]);
      expect(committedBeforeTheCrash).toBe(3);
      expect(again.batchItemFailures).toEqual([]);
      expect([...(await orderVersions(fx.pool, orderIds)).values()]).toEqual([1, 1, 1, 1, 1]);
    });

    it('counts a batch of statements as its records\' commit points, committed at once: dying after it, the redelivery finds every order applied', async () => {
      const orderIds = await seedOrders(fx.pool, 5);
      const records = orderIds.map((orderId) => sqsRecord({ orderId }, { key: `batched-${orderId}` }));
      const plans: (CrashPoint | undefined)[] = [{ when: 'after-commit', at: 1 }, undefined];
      const db = driver.name === 'pg' ? pgDatabase({ connectionString: fx.url, batch: true }) : fx.db;
      const handler = crashingHandler({
        db,
        worker: (dying) => ({ ...shipOrderOptions(dying), consumer: `crash-batched-${driver.name}` }),
        plan: () => plans.shift(),
      });
      try {
        await expect(handler(sqsEvent(...records), lambdaContext())).rejects.toBeInstanceOf(InjectedCrashError);
        const committedBeforeTheCrash = [...(await orderVersions(fx.pool, orderIds)).values()];
        const again = await handler(sqsEvent(...records), lambdaContext());

        expect(committedBeforeTheCrash).toEqual([1, 1, 1, 1, 1]);
        expect(again.batchItemFailures).toEqual([]);
        expect([...(await orderVersions(fx.pool, orderIds)).values()]).toEqual([1, 1, 1, 1, 1]);
      } finally {
        if (db !== fx.db) await db.close();
      }
    });

    it('kills an invocation still running at its timeout, as Lambda resets the environment: nothing more of it commits', async () => {
      const [orderId] = await seedOrders(fx.pool, 1);
      const handler = crashingHandler({
        db: fx.db,
        worker: (db) => ({
          consumer: `timeout-${driver.name}`,
          db,
          deadlineMarginMs: 0,
          handle: async () => {
            await new Promise((resolve) => setTimeout(resolve, 400));
          },
        }),
        plan: () => undefined,
      });

      await expect(handler(sqsEvent(sqsRecord({ orderId }, { key: `slow-${orderId}` })), lambdaContext(150))).rejects.toBeInstanceOf(FunctionTimeoutError);
      await new Promise((resolve) => setTimeout(resolve, 400));

      const { rows } = await fx.pool.query('SELECT count(*)::int AS claims FROM consumed_message WHERE message_id = $1', [`slow-${orderId}`]);
      expect(rows[0].claims).toBe(0);
    });
  });
});

describe('on the Data API, a transaction the dead invocation had open is abandoned, not rolled back', () => {
  let fresh: FreshDatabase;
  let local: LocalDataApi;

  beforeAll(async () => {
    fresh = await freshDatabase();
    local = await openDataApi(fresh.url, { idleTimeoutMs: 500 });
  });

  afterAll(async () => {
    await local.close();
    await fresh.close();
  });

  it('holds its row locks until the service\'s idle timeout rolls it back, as a Lambda that died mid-transaction does', async () => {
    const [orderId] = await seedOrders(fresh.pool, 1);
    const dying = dyingDatabase(local.db, { when: 'before-commit', at: 1 }, 'abandoned');
    const writeElsewhere = async () => {
      const client = await fresh.pool.connect();
      try {
        await client.query("SET lock_timeout = '100ms'");
        return await client.query('UPDATE orders SET status = $2 WHERE order_id = $1', [orderId, 'cancelled']);
      } finally {
        client.release();
      }
    };

    const call = dying.db.transaction((tx) => tx.query(ship(orderId!)));
    await expect(dying.death).rejects.toBeInstanceOf(InjectedCrashError);

    await expect(writeElsewhere()).rejects.toMatchObject({ code: '55P03' });
    expect(local.api.stats().openTransactions).toBe(1);
    await vi.waitFor(() => expect(local.api.stats().openTransactions).toBe(0), { timeout: 5000, interval: 50 });
    await expect(writeElsewhere()).resolves.toMatchObject({ rowCount: 1 });
    expect(await orderVersions(fresh.pool, [orderId!])).toEqual(new Map([[orderId, 0]]));
    expect(await Promise.race([call.then(() => 'settled', () => 'settled'), Promise.resolve('pending')])).toBe('pending');
  });
});
