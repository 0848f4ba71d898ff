import { randomUUID } from 'node:crypto';
import { ExecuteStatementCommand } from '@aws-sdk/client-rds-data';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DatabaseQueryError, processBatch, sql, type Database, type Transaction } from '../../functions/inbox/index.js';
import { TransactionEndedError } from '../../functions/inbox/database/errors.js';
import { SqlState, sqlStateOf } from '../../functions/inbox/sql/sql-state.js';
import { DataApiResumingError, DataApiStatementTimeoutError } from '../../functions/inbox/data-api/index.js';
import { pgDatabase } from '../../functions/inbox/pg/index.js';
import { isTransient } from '../../functions/inbox/transient.js';
import { LOCAL_DATA_API_TARGET, localDataApiDatabase } from '../../local/data-api/index.js';
import { openDataApi, type LocalDataApi } from '../support/data-api.js';
import { freshDatabase, type FreshDatabase } from '../support/database.js';
import { seedOrders, uniqueConsumer } from '../support/orders.js';
import { failedIds, lambdaContext, sqsEvent, sqsRecord } from '../support/sqs-events.js';

let fresh: FreshDatabase;
let local: LocalDataApi;
let db: Database;
const opened: LocalDataApi[] = [];

beforeAll(async () => {
  fresh = await freshDatabase();
  local = await open();
  db = local.db;
});

afterAll(async () => {
  for (const one of opened) await one.close();
  await fresh.close();
});

beforeEach(() => local.api.resetStats());

/** Another emulator and driver on the same database, for settings of a test's own. */
async function open(...args: Parameters<typeof openDataApi> extends [string, ...infer Rest] ? Rest : never): Promise<LocalDataApi> {
  const one = await openDataApi(fresh.url, ...args);
  opened.push(one);
  return one;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

const insertOrder = (tx: Pick<Database, 'query'>, id: string) => tx.query(sql`INSERT INTO orders (order_id) VALUES (${sql.uuid(id)})`);
const orderExists = async (id: string) => (await fresh.pool.query('SELECT 1 FROM orders WHERE order_id = $1', [id])).rowCount === 1;

describe('transactions commit, or roll back on a throw', () => {
  it('commits the work of a callback that returns, in BeginTransaction + statements + CommitTransaction', async () => {
    const id = randomUUID();
    await db.transaction((tx) => insertOrder(tx, id));
    expect(await orderExists(id)).toBe(true);
    expect(local.api.stats().calls).toEqual({ BeginTransaction: 1, ExecuteStatement: 1, CommitTransaction: 1 });
  });

  it('rolls back the work of a callback that throws, and rethrows its error', async () => {
    const id = randomUUID();
    const boom = new Error('handler failed');
    await expect(db.transaction(async (tx) => { await insertOrder(tx, id); throw boom; })).rejects.toBe(boom);
    expect(await orderExists(id)).toBe(false);
    expect(local.api.stats().calls).toEqual({ BeginTransaction: 1, ExecuteStatement: 1, RollbackTransaction: 1 });
    expect(local.api.stats().openTransactions).toBe(0);
  });

  it('serializes parallel tx.query calls, which the service would refuse', async () => {
    const results = await db.transaction((tx) => Promise.all(
      [1, 2, 3, 4, 5].map((n) => tx.query<{ n: number }>(sql`SELECT ${n}::int AS n, pg_sleep(0.02)`)),
    ));
    expect(results.map((result) => result.rows[0]?.n)).toEqual([1, 2, 3, 4, 5]);
    expect(local.api.stats().errors).toEqual({});
  });

  it('waits for a query still running before rolling back', async () => {
    const id = randomUUID();
    await expect(db.transaction(async (tx) => {
      void insertOrder(tx, id).then(() => tx.query(sql`SELECT pg_sleep(0.1)`)).catch(() => undefined);
      await sleep(10);
      throw new Error('gave up early');
    })).rejects.toThrow('gave up early');
    expect(local.api.stats().errors).toEqual({});
    expect(await orderExists(id)).toBe(false);
  });
});

describe('no call is sent on a transaction the service has ended', () => {
  it('after the idle timeout: the next query throws TransactionEndedError, and no Rollback follows', async () => {
    const short = await open({ idleTimeoutMs: 100 });
    const id = randomUUID();
    let second: unknown;
    const error = await rejection(short.db.transaction(async (tx) => {
      await insertOrder(tx, id);
      await sleep(300);
      await tx.query(sql`SELECT 1`).catch((ended: unknown) => { second = ended; });
      await tx.query(sql`SELECT 2`);
    }));
    expect(second).toBeInstanceOf(TransactionEndedError);
    expect(error).toBeInstanceOf(TransactionEndedError);
    expect(error.message).toMatch(/already ended transaction/);
    // Begin, the insert, the one query that learned the transaction was gone: nothing after it.
    expect(short.api.stats().calls).toEqual({ BeginTransaction: 1, ExecuteStatement: 2 });
    expect(await orderExists(id)).toBe(false);
  });

  it('after a failed statement: the statement error surfaces, later queries are refused without a call, the rollback finds nothing', async () => {
    const id = randomUUID();
    let later: unknown;
    const error = await rejection(db.transaction(async (tx) => {
      await insertOrder(tx, id);
      await tx.query(sql`SELECT 1 / 0`).catch(async (failed: unknown) => {
        later = await tx.query(sql`SELECT 1`).catch((refused: unknown) => refused);
        throw failed;
      });
    }));
    expect(error).toBeInstanceOf(DatabaseQueryError);
    expect((error as DatabaseQueryError).sqlState).toBe(SqlState.divisionByZero);
    expect(sqlStateOf(later)).toBe('25P02');
    expect(local.api.stats().calls).toEqual({ BeginTransaction: 1, ExecuteStatement: 2, RollbackTransaction: 1 });
    expect(local.api.stats().errors).toEqual({ DatabaseErrorException: 1, TransactionNotFoundException: 1 });
    expect(await orderExists(id)).toBe(false);
  });

  it('does not report committed a transaction whose handler swallowed a statement error', async () => {
    const id = randomUUID();
    const error = await rejection(db.transaction(async (tx) => {
      await insertOrder(tx, id);
      await tx.query(sql`SELECT 1 / 0`).catch(() => undefined);
      return 'looked fine';
    }));
    expect(sqlStateOf(error)).toBe('25P02');
    expect(local.api.stats().calls.CommitTransaction).toBeUndefined();
    expect(await orderExists(id)).toBe(false);
  });
});

describe('DatabaseResumingException is waited out', () => {
  it('retries a call with backoff until the cluster has resumed', async () => {
    const resuming = await open({}, { resumeRetry: { attempts: 8, baseMs: 40, maxMs: 200 } });
    resuming.api.pause(250);
    const { rows } = await resuming.db.query<{ one: number }>(sql`SELECT 1::int AS one`);
    expect(rows).toEqual([{ one: 1 }]);
    const { calls, errors } = resuming.api.stats();
    expect(errors.DatabaseResumingException).toBeGreaterThanOrEqual(1);
    expect(calls.ExecuteStatement).toBe((errors.DatabaseResumingException ?? 0) + 1);
  });

  it('retries BeginTransaction the same way', async () => {
    const resuming = await open({}, { resumeRetry: { attempts: 8, baseMs: 40, maxMs: 200 } });
    resuming.api.pause(150);
    await expect(resuming.db.transaction((tx) => tx.query(sql`SELECT 1 AS one`))).resolves.toEqual({ rows: [{ one: 1 }], rowCount: 1 });
    expect(resuming.api.stats().calls.BeginTransaction).toBeGreaterThan(1);
  });

  it('gives up after resumeRetry.attempts with DataApiResumingError, which the runtime retries', async () => {
    const resuming = await open({}, { resumeRetry: { attempts: 3, baseMs: 10, maxMs: 20 } });
    resuming.api.pause(5_000);
    const error = await rejection(resuming.db.query(sql`SELECT 1`));
    expect(error).toBeInstanceOf(DataApiResumingError);
    expect(error.message).toMatch(/still resuming after 3 tries/);
    expect((error.cause as Error).name).toBe('DatabaseResumingException');
    expect(isTransient(error)).toBe(true);
    expect(resuming.api.stats().calls.ExecuteStatement).toBe(3);
    resuming.api.pause(0);
  });
});

describe('the SQLSTATE is recovered from DatabaseErrorException, as node-postgres gives it', () => {
  it('23505 unique violation', async () => {
    const [id] = await seedOrders(fresh.pool, 1);
    const error = await rejection(insertOrder(db, id!));
    expect(error).toBeInstanceOf(DatabaseQueryError);
    expect(sqlStateOf(error)).toBe(SqlState.uniqueViolation);
  });

  it('55P03 lock not available', async () => {
    const [id] = await seedOrders(fresh.pool, 1);
    const holder = await fresh.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM orders WHERE order_id = $1 FOR UPDATE', [id]);
      const error = await rejection(db.transaction(async (tx) => {
        await tx.query(sql`SELECT set_config('lock_timeout', '50ms', true)`);
        await tx.query(sql`UPDATE orders SET version = version + 1 WHERE order_id = ${sql.uuid(id!)}`);
      }));
      expect(sqlStateOf(error)).toBe(SqlState.lockNotAvailable);
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
  });

  it('40P01 deadlock detected', async () => {
    const [x, y] = await seedOrders(fresh.pool, 2);
    const bump = (tx: Transaction, id: string) => tx.query(sql`UPDATE orders SET version = version + 1 WHERE order_id = ${sql.uuid(id)}`);
    let arrived = 0;
    let release!: () => void;
    const barrier = new Promise<void>((resolve) => { release = resolve; });
    const crossed = (first: string, second: string) => db.transaction(async (tx) => {
      await bump(tx, first);
      arrived += 1;
      if (arrived === 2) release();
      await barrier;
      await bump(tx, second);
    });
    const results = await Promise.allSettled([crossed(x!, y!), crossed(y!, x!)]);
    const failures = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
    expect(failures.map((failure) => sqlStateOf(failure.reason))).toEqual([SqlState.deadlockDetected]);
  });

  it('40001 serialization failure', async () => {
    const [id] = await seedOrders(fresh.pool, 1);
    let read = 0;
    let bothRead!: () => void;
    const barrier = new Promise<void>((resolve) => { bothRead = resolve; });
    const serializable = () => db.transaction(async (tx) => {
      await tx.query(sql`SET TRANSACTION ISOLATION LEVEL SERIALIZABLE`);
      await tx.query(sql`SELECT version FROM orders WHERE order_id = ${sql.uuid(id!)}`);
      read += 1;
      if (read === 2) bothRead();
      await barrier;
      await tx.query(sql`UPDATE orders SET version = version + 1 WHERE order_id = ${sql.uuid(id!)}`);
    });
    const outcomes = await Promise.allSettled([serializable(), serializable()]);
    const failures = outcomes.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
    expect(failures.map((failure) => sqlStateOf(failure.reason))).toEqual([SqlState.serializationFailure]);
    expect(isTransient(failures[0]?.reason)).toBe(true);
  });
});

describe('a statement past the statement timeout', () => {
  it('throws DataApiStatementTimeoutError saying what to change', async () => {
    const slow = await open({ statementTimeoutMs: 100 });
    const error = await rejection(slow.db.query(sql`SELECT pg_sleep(1)`));
    expect(error).toBeInstanceOf(DataApiStatementTimeoutError);
    expect(error.message).toMatch(/make it cheaper/);
    expect((error.cause as Error).name).toBe('StatementTimeoutException');
  });
});

describe('rows and rowCount look the same as on node-postgres', () => {
  let pgDb: Database;
  beforeAll(() => { pgDb = pgDatabase({ connectionString: fresh.url, max: 2 }); });
  afterAll(() => pgDb.close());

  it('decodes each type as node-postgres does', async () => {
    const statement = sql`SELECT 7::int4 AS i4, 9007199254740993::int8 AS i8, count(*) AS n, 12.50::numeric(12,2) AS d, 1.5::float8 AS f,
      true AS b, '{"a":[1]}'::jsonb AS j, '2024-05-01 12:34:56.789+02'::timestamptz AS at, ${sql.uuid('6f1c8a3e-1b2c-4d5e-8f90-a1b2c3d4e5f6')}::uuid AS u,
      '\\x00ff'::bytea AS bytes, NULL::text AS nothing, ${'text'} AS t FROM (VALUES (1), (2)) v`;
    const [viaDataApi, viaPg] = await Promise.all([db.query(statement), pgDb.query(statement)]);
    expect(viaDataApi).toEqual(viaPg);
  });

  it('counts as node-postgres counts: rows returned, or rows changed', async () => {
    const ids = [randomUUID(), randomUUID()];
    const insert = (id1: string, id2: string) => sql`INSERT INTO orders (order_id) VALUES (${sql.uuid(id1)}), (${sql.uuid(id2)}) RETURNING order_id`;
    const update = (id1: string, id2: string) => sql`UPDATE orders SET version = version + 1 WHERE order_id IN (${sql.uuid(id1)}, ${sql.uuid(id2)})`;
    const select = sql`SELECT 1 FROM generate_series(1, 3)`;
    const other = [randomUUID(), randomUUID()];
    expect((await db.query(insert(ids[0]!, ids[1]!))).rowCount).toBe((await pgDb.query(insert(other[0]!, other[1]!))).rowCount);
    expect((await db.query(update(ids[0]!, ids[1]!))).rowCount).toBe((await pgDb.query(update(other[0]!, other[1]!))).rowCount);
    expect((await db.query(select)).rowCount).toBe((await pgDb.query(select)).rowCount);
    expect((await db.query(update(randomUUID(), randomUUID()))).rowCount).toBe(0);
  });

  it('refuses, like the Data API driver, to report committed a transaction whose handler swallowed a statement error', async () => {
    const id = randomUUID();
    const error = await rejection(pgDb.transaction(async (tx) => {
      await insertOrder(tx, id);
      await tx.query(sql`SELECT 1 / 0`).catch(() => undefined);
    }));
    expect(sqlStateOf(error)).toBe('25P02');
    expect(await orderExists(id)).toBe(false);
  });

  it('binds a Date, a bigint and bytes as the column types want them', async () => {
    const at = new Date('2024-05-01T10:00:00.123Z');
    const { rows } = await db.query<{ at: Date; big: string; bytes: Buffer }>(
      sql`SELECT ${at}::timestamptz AS at, ${2n ** 62n}::int8 AS big, ${new Uint8Array([1, 2, 3])} AS bytes`);
    expect(rows).toEqual([{ at, big: (2n ** 62n).toString(), bytes: Buffer.from([1, 2, 3]) }]);
  });
});

describe('Data API calls per message', () => {
  it('statement mode costs exactly one ExecuteStatement per message unbatched, and BeginTransaction, one BatchExecuteStatement and CommitTransaction batched', async () => {
    const calls: Record<string, unknown>[] = [];
    for (const batchStatements of [false, true]) {
      const ids = await seedOrders(fresh.pool, 5);
      local.api.resetStats();
      const response = await processBatch<{ id: string }>(sqsEvent(...ids.map((id) => sqsRecord({ id }))), lambdaContext(), {
        consumer: uniqueConsumer('calls-statement'), db, batchStatements,
        statement: (order) => sql`UPDATE orders SET status = 'shipped' WHERE order_id = ${sql.uuid(order.id)}`,
      });
      expect(failedIds(response)).toEqual([]);
      calls.push(local.api.stats().calls);
    }
    expect(calls).toEqual([{ ExecuteStatement: 5 }, { BeginTransaction: 1, BatchExecuteStatement: 1, CommitTransaction: 1 }]);
  });

  it('transaction mode costs BeginTransaction, the claim and the handler statements, and CommitTransaction', async () => {
    const ids = await seedOrders(fresh.pool, 5);
    const response = await processBatch<{ id: string }>(sqsEvent(...ids.map((id) => sqsRecord({ id }))), lambdaContext(), {
      consumer: uniqueConsumer('calls-transaction'), db,
      handle: async (order, { tx }) => { await tx.query(sql`UPDATE orders SET status = 'shipped' WHERE order_id = ${sql.uuid(order.id)}`); },
    });
    expect(failedIds(response)).toEqual([]);
    expect(local.api.stats().calls).toEqual({ BeginTransaction: 5, ExecuteStatement: 10, CommitTransaction: 5 });
  });
});

describe('close', () => {
  it('leaves a client it was given open', async () => {
    const one = await open();
    await one.db.close();
    await expect(one.client.send(new ExecuteStatementCommand({ ...LOCAL_DATA_API_TARGET, sql: 'SELECT 1' }))).resolves.toMatchObject({ records: [[{ longValue: 1 }]] });
  });

  it("localDataApiDatabase given only the emulator's endpoint reaches it through a client of its own", async () => {
    const own = localDataApiDatabase(local.api.endpoint, local.database);
    await expect(own.query<{ one: number }>(sql`SELECT 1 AS one`)).resolves.toMatchObject({ rows: [{ one: 1 }] });
    await own.close();
    expect(local.api.stats().calls).toEqual({ ExecuteStatement: 1 });
  });
});
