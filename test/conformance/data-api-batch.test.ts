import { randomUUID } from 'node:crypto';
import {
  BadRequestException,
  BatchExecuteStatementCommand,
  BeginTransactionCommand,
  CommitTransactionCommand,
  DatabaseErrorException,
  RDSDataServiceException,
  TransactionNotFoundException,
  type BatchExecuteStatementCommandInput,
  type RDSDataClient,
  type SqlParameter,
} from '@aws-sdk/client-rds-data';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_DATA_API_TARGET, localDataApiClient, startDataApi, type RunningDataApi } from '../../local/data-api/index.js';
import { freshDatabase, type FreshDatabase } from '../support/database.js';
import { thrown } from '../support/thrown.js';

let fresh: FreshDatabase;
let api: RunningDataApi;
let client: RDSDataClient;

beforeAll(async () => {
  fresh = await freshDatabase();
  api = await startDataApi({ databaseUrl: fresh.url });
  client = localDataApiClient(api.endpoint);
});

afterAll(async () => {
  client.destroy();
  await api.close();
  await fresh.close();
});

const batch = (input: Omit<BatchExecuteStatementCommandInput, 'resourceArn' | 'secretArn'>) =>
  client.send(new BatchExecuteStatementCommand({ ...LOCAL_DATA_API_TARGET, ...input }));
const begin = () => client.send(new BeginTransactionCommand({ ...LOCAL_DATA_API_TARGET })).then((out) => out.transactionId!);
const commit = (transactionId: string) => client.send(new CommitTransactionCommand({ ...LOCAL_DATA_API_TARGET, transactionId }));
const uuid = (value: string): SqlParameter[] => [{ name: 'id', value: { stringValue: value }, typeHint: 'UUID' }];
const INSERT = 'INSERT INTO orders (order_id) VALUES (:id)';

async function stored(ids: readonly string[]): Promise<string[]> {
  const { rows } = await fresh.pool.query<{ order_id: string }>('SELECT order_id FROM orders WHERE order_id = ANY($1::uuid[]) ORDER BY order_id', [ids]);
  return rows.map((row) => row.order_id);
}

describe('BatchExecuteStatement without a transaction', () => {
  it('runs the text once per parameter set, in order, commits them, and answers one empty generatedFields a set, RETURNING or not', async () => {
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    const inserted = await batch({ sql: `${INSERT} RETURNING order_id`, parameterSets: ids.map(uuid) });
    const updated = await batch({
      sql: 'UPDATE orders SET version = version * 10 + :n WHERE order_id = :id',
      parameterSets: [1, 2].map((n) => [...uuid(ids[0]!), { name: 'n', value: { longValue: n } }]),
    });

    expect(inserted.updateResults).toEqual([{ generatedFields: [] }, { generatedFields: [] }, { generatedFields: [] }]);
    expect(updated.updateResults).toHaveLength(2);
    expect(await stored(ids)).toEqual([...ids].sort());
    expect((await fresh.pool.query('SELECT version FROM orders WHERE order_id = $1', [ids[0]])).rows[0].version).toBe(12);
  });

  it('commits none of its sets when one fails, answering DatabaseErrorException with the SQLState', async () => {
    const ids = [randomUUID(), randomUUID()];
    const error = await thrown(batch({ sql: INSERT, parameterSets: [uuid(ids[0]!), uuid(ids[1]!), uuid(ids[0]!)] }));

    expect(error).toBeInstanceOf(DatabaseErrorException);
    expect(error.message).toMatch(/SQLState: 23505$/);
    expect(await stored(ids)).toEqual([]);
  });
});

describe('BatchExecuteStatement in a transaction', () => {
  it('runs its sets in the transaction: seen there, committed with it', async () => {
    const ids = [randomUUID(), randomUUID()];
    const transactionId = await begin();
    await batch({ sql: INSERT, parameterSets: ids.map(uuid), transactionId });

    expect(await stored(ids)).toEqual([]);
    await commit(transactionId);
    expect(await stored(ids)).toEqual([...ids].sort());
  });

  it('rolls the transaction back when a set fails: its earlier work is undone and the next call gets TransactionNotFoundException', async () => {
    const before = randomUUID();
    const transactionId = await begin();
    await batch({ sql: INSERT, parameterSets: [uuid(before)], transactionId });
    const error = await thrown(batch({
      sql: 'INSERT INTO orders (order_id, version) VALUES (:id, 1 / :d)',
      parameterSets: [1, 0].map((d) => [...uuid(randomUUID()), { name: 'd', value: { longValue: d } }]), transactionId,
    }));

    expect(error).toBeInstanceOf(DatabaseErrorException);
    expect(error.message).toMatch(/SQLState: 22012$/);
    expect(await thrown(commit(transactionId))).toBeInstanceOf(TransactionNotFoundException);
    expect(await stored([before])).toEqual([]);
  });
});

describe('BatchExecuteStatement limits and refusals', () => {
  it('refuses a request over 4 MiB with BadRequestException and runs none of it, and serves one just under', async () => {
    const padding = (bytes: number): SqlParameter[] => [{ name: 'pad', value: { stringValue: 'x'.repeat(bytes) } }];
    const sets = (bytes: number) => Array.from({ length: 4 }, () => padding(bytes));
    const over = await thrown(batch({ sql: 'SELECT length(:pad)', parameterSets: sets(1024 * 1024 + 1024) }));

    expect(over).toBeInstanceOf(BadRequestException);
    await expect(batch({ sql: 'SELECT length(:pad)', parameterSets: sets(1000 * 1000) })).resolves.toMatchObject({ updateResults: expect.any(Array) });
  });

  it('refuses an answer over 1 MiB, as every response, and commits none of its sets', async () => {
    // 46,000 sets answer 46,000 {"generatedFields":[]}: just over 1 MiB.
    const { rows: [before] } = await fresh.pool.query('SELECT count(*)::int AS n FROM orders');
    const error = await thrown(batch({ sql: 'INSERT INTO orders (order_id) VALUES (gen_random_uuid())', parameterSets: Array.from({ length: 46_000 }, () => []) }));

    expect(error).toBeInstanceOf(BadRequestException);
    expect(error.message).toBe('Database returned more than the allowed response size limit');
    expect((await fresh.pool.query('SELECT count(*)::int AS n FROM orders')).rows[0]).toEqual(before);
  });

  it('refuses more than one statement in its text, as ExecuteStatement does', async () => {
    const error = await thrown(batch({ sql: 'SELECT 1; SELECT 2', parameterSets: [[]] }));

    expect(error).toBeInstanceOf(RDSDataServiceException);
    expect(error.name).toBe('ValidationException');
  });
});
