import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from '../../functions/inbox/index.js';
import { shipOrderOptions } from '../../functions/order-worker/ship-order.js';
import { crashingHandler, InjectedCrashError } from '../../demo/crashing-handler.js';
import { dataApiEnvironment, type LambdaEnvironment } from '../../demo/lambda-environment.js';
import { openDataApi, type LocalDataApi } from '../support/data-api.js';
import { freshDatabase, type FreshDatabase } from '../support/database.js';
import { orderVersions, seedOrders, uniqueConsumer } from '../support/orders.js';
import { lambdaContext, sqsEvent, sqsRecord } from '../support/sqs-events.js';

let fresh: FreshDatabase;
let local: LocalDataApi;
const made: LambdaEnvironment[] = [];
const environment = () => {
  const each = dataApiEnvironment(local.api.endpoint, local.database);
  made.push(each);
  return each;
};

beforeAll(async () => {
  fresh = await freshDatabase();
  local = await openDataApi(fresh.url);
});

afterAll(async () => {
  await Promise.all(made.map((each) => each.close()));
  await local.close();
  await fresh.close();
});

describe('a Lambda environment on the Data API, as its process holds its own client', () => {
  it('serves calls while alive; once killed, a call in flight is cut off on its side and nothing more is sent', async () => {
    const alive = environment();
    await expect(alive.db.query(sql`SELECT 1 AS one`)).resolves.toMatchObject({ rows: [{ one: 1 }] });
    const reason = new Error('process exited');

    const inFlight = alive.db.query(sql`SELECT pg_sleep(0.3)`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    alive.kill(reason);
    await expect(inFlight).rejects.toBe(reason);
    const callsAtDeath = local.api.stats().total;
    await expect(alive.db.query(sql`SELECT 1 AS one`)).rejects.toBe(reason);
    await expect(alive.db.transaction((tx) => tx.query(sql`SELECT 1 AS one`))).rejects.toBe(reason);

    expect(local.api.stats().total).toBe(callsAtDeath);
  });

  it('still sends, once, a call made just before the death: its bytes would have left the process', async () => {
    const dying = environment();
    const before = local.api.stats().calls.ExecuteStatement ?? 0;

    const made = dying.db.query(sql`SELECT 1 AS one`);
    dying.kill(new Error('process exited'));

    await expect(made).rejects.toThrow('process exited');
    await vi.waitFor(() => expect(local.api.stats().calls.ExecuteStatement).toBe(before + 1), { timeout: 2000, interval: 20 });
  });
});

describe('crashingHandler with an environment per Lambda execution environment', () => {
  it('reuses a living environment, and runs the invocation after a crash in a new one', async () => {
    const orderIds = await seedOrders(fresh.pool, 3);
    const consumer = uniqueConsumer('environments');
    const before = made.length;
    const plans = [undefined, { when: 'after-commit', at: 1 } as const, undefined];
    const handler = crashingHandler({
      db: local.db,
      environment,
      worker: (db) => ({ ...shipOrderOptions(db), consumer }),
      plan: () => plans.shift(),
    });
    const batch = (orderId: string) => sqsEvent(sqsRecord({ orderId }, { key: `ship-${orderId}` }));

    await handler(batch(orderIds[0]!), lambdaContext());
    await expect(handler(batch(orderIds[1]!), lambdaContext())).rejects.toBeInstanceOf(InjectedCrashError);
    await handler(batch(orderIds[2]!), lambdaContext());

    expect(made.length - before).toBe(2);
    expect([...(await orderVersions(fresh.pool, orderIds)).values()]).toEqual([1, 1, 1]);
  });
});
