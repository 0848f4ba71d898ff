import {
  BeginTransactionCommand,
  CommitTransactionCommand,
  DatabaseUnavailableException,
  ExecuteStatementCommand,
  TransactionNotFoundException,
  type RDSDataClient,
} from '@aws-sdk/client-rds-data';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LOCAL_DATA_API_TARGET, localDataApiClient, startDataApi, type RunningDataApi } from '../../local/data-api/index.js';
import { startPostgres, type RunningPostgres } from '../../local/postgres/index.js';
import { thrown } from '../support/thrown.js';

let postgres: RunningPostgres;
let api: RunningDataApi;
let client: RDSDataClient;

beforeAll(async () => {
  // A server of this file's own, embedded even when DATABASE_URL names one: only ours may be restarted.
  postgres = await startPostgres({ databaseUrl: '' });
  api = await startDataApi({ databaseUrl: postgres.url });
  client = localDataApiClient(api.endpoint);
});

afterAll(async () => {
  client?.destroy();
  await api?.close();
  await postgres?.close();
});

const execute = (sql: string, transactionId?: string) =>
  client.send(new ExecuteStatementCommand({ ...LOCAL_DATA_API_TARGET, sql, transactionId }));
const begin = () => client.send(new BeginTransactionCommand({ ...LOCAL_DATA_API_TARGET })).then((out) => out.transactionId!);
const commit = (transactionId: string) => client.send(new CommitTransactionCommand({ ...LOCAL_DATA_API_TARGET, transactionId }));

/** Calls in a loop until stopped: autocommitted ones and short transactions, by the names of what they threw. */
function trafficUntil(stopped: () => boolean): Promise<Record<string, number>> {
  const failures: Record<string, number> = {};
  const lane = async (index: number) => {
    while (!stopped()) {
      try {
        if (index % 2 === 0) {
          await execute('SELECT pg_sleep(0.02)');
        } else {
          const id = await begin();
          await execute('SELECT pg_sleep(0.02)', id);
          await commit(id);
        }
      } catch (error) {
        const name = (error as Error).name;
        failures[name] = (failures[name] ?? 0) + 1;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  };
  return Promise.all(Array.from({ length: 8 }, (_, index) => lane(index))).then(() => failures);
}

describe('a PostgreSQL restart under the emulator, as a database restart under the service', () => {
  it('leaves the emulator serving: calls under load fail only with the service\'s errors and succeed again after', async () => {
    let stopped = false;
    const traffic = trafficUntil(() => stopped);
    await new Promise((resolve) => setTimeout(resolve, 300));

    await postgres.restart!(() => new Promise((resolve) => setTimeout(resolve, 500)));
    await new Promise((resolve) => setTimeout(resolve, 500));
    stopped = true;
    const failures = await traffic;

    expect(Object.keys(failures)).toContain('DatabaseUnavailableException');
    expect(Object.keys(failures).filter((name) => name !== 'DatabaseUnavailableException' && name !== 'TransactionNotFoundException')).toEqual([]);
    await expect(execute('SELECT 1 AS one')).resolves.toMatchObject({ records: [[{ longValue: 1 }]] });
  }, 60_000);

  it('fails calls with DatabaseUnavailableException while the database is down, ends open transactions, and serves again after', async () => {
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    admin.on('error', () => undefined);
    await execute('SELECT 1');
    const open = await begin();
    await execute('SELECT 1', open);
    // A statement still running when the server shuts down: the restart waits until the server runs it.
    const running = thrown(execute('SELECT pg_sleep(5)'));
    await vi.waitFor(async () => {
      const { rows } = await admin.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(5)' AND state = 'active'");
      expect(rows[0]?.n).toBe(1);
    }, { timeout: 5000, interval: 20 });

    let whileDown: unknown[] = [];
    await admin.end();
    await postgres.restart!(async () => {
      whileDown = await Promise.all([thrown(execute('SELECT 1')), thrown(begin())]);
    });

    expect(await running).toBeInstanceOf(DatabaseUnavailableException);
    expect(whileDown).toHaveLength(2);
    for (const error of whileDown) {
      expect(error).toBeInstanceOf(DatabaseUnavailableException);
      expect(error).toMatchObject({ $fault: 'server', $metadata: { httpStatusCode: 504 } });
    }
    // The transaction's connection died with the server, as its session does on Aurora.
    expect(await thrown(execute('SELECT 1', open))).toBeInstanceOf(TransactionNotFoundException);

    await expect(execute('SELECT 1 AS one')).resolves.toMatchObject({ records: [[{ longValue: 1 }]] });
    const next = await begin();
    await execute('SELECT 1', next);
    await expect(commit(next)).resolves.toMatchObject({ transactionStatus: 'Transaction Committed' });
    expect(api.stats()).toMatchObject({ openTransactions: 0, errors: { DatabaseUnavailableException: expect.any(Number) } });
  }, 60_000);
});
