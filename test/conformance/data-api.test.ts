import { randomUUID } from 'node:crypto';
import net from 'node:net';
import {
  BadRequestException,
  BatchExecuteStatementCommand,
  BeginTransactionCommand,
  CommitTransactionCommand,
  DatabaseErrorException,
  DatabaseResumingException,
  ExecuteStatementCommand,
  RDSDataServiceException,
  RollbackTransactionCommand,
  StatementTimeoutException,
  TransactionNotFoundException,
  type ExecuteStatementCommandInput,
  type RDSDataClient,
  type SqlParameter,
} from '@aws-sdk/client-rds-data';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LOCAL_DATA_API_TARGET, localDataApiClient, startDataApi, type RunningDataApi, type StartDataApiOptions } from '../../local/data-api/index.js';
import { freshDatabase, type FreshDatabase } from '../support/database.js';
import { thrown } from '../support/thrown.js';

let fresh: FreshDatabase;
let other: FreshDatabase;
let api: RunningDataApi;
let client: RDSDataClient;
const started: { api: RunningDataApi; client: RDSDataClient }[] = [];

beforeAll(async () => {
  [fresh, other] = await Promise.all([freshDatabase(), freshDatabase()]);
  ({ api, client } = await emulator());
});

afterAll(async () => {
  for (const { api: running, client: sdk } of started) {
    sdk.destroy();
    await running.close();
  }
  await Promise.all([fresh.close(), other.close()]);
});

/** An emulator of this file's own on the fresh database, with the real SDK client on it. */
async function emulator(options: Omit<StartDataApiOptions, 'databaseUrl'> = {}) {
  const running = await startDataApi({ databaseUrl: fresh.url, ...options });
  const sdk = localDataApiClient(running.endpoint);
  started.push({ api: running, client: sdk });
  return { api: running, client: sdk };
}

const execute = (input: Omit<ExecuteStatementCommandInput, 'resourceArn' | 'secretArn'>, sdk = client) =>
  sdk.send(new ExecuteStatementCommand({ ...LOCAL_DATA_API_TARGET, ...input }));
const begin = (sdk = client) => sdk.send(new BeginTransactionCommand({ ...LOCAL_DATA_API_TARGET })).then((out) => out.transactionId!);
const text = (name: string, value: string, typeHint?: SqlParameter['typeHint']): SqlParameter => ({ name, value: { stringValue: value }, typeHint });

/** What the SDK threw, to compare class, name and message. */
/** A raw POST, as a client without the SDK sends it. */
async function post(path: string, body: string, endpoint = api.endpoint) {
  const response = await fetch(`${endpoint}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { status: response.status, errorType: response.headers.get('x-amzn-errortype'), body: await response.json() as Record<string, unknown> };
}

async function seedOrder(): Promise<string> {
  const id = randomUUID();
  await fresh.pool.query('INSERT INTO orders (order_id, amount) VALUES ($1, 12.5)', [id]);
  return id;
}

describe('the five restJson1 operations, on 127.0.0.1 only, SigV4 not checked', () => {
  it('serves Execute, BatchExecute, BeginTransaction, CommitTransaction and RollbackTransaction through the SDK', async () => {
    const id = randomUUID();
    await client.send(new BatchExecuteStatementCommand({
      ...LOCAL_DATA_API_TARGET, sql: 'INSERT INTO orders (order_id) VALUES (:id)',
      parameterSets: [[text('id', id, 'UUID')]],
    }));
    const committed = await begin();
    await execute({ sql: 'UPDATE orders SET version = 1 WHERE order_id = :id', parameters: [text('id', id, 'UUID')], transactionId: committed });
    expect(await client.send(new CommitTransactionCommand({ ...LOCAL_DATA_API_TARGET, transactionId: committed }))).toMatchObject({ transactionStatus: 'Transaction Committed' });
    const rolledBack = await begin();
    await execute({ sql: 'UPDATE orders SET version = 2 WHERE order_id = :id', parameters: [text('id', id, 'UUID')], transactionId: rolledBack });
    expect(await client.send(new RollbackTransactionCommand({ ...LOCAL_DATA_API_TARGET, transactionId: rolledBack }))).toMatchObject({ transactionStatus: 'Rollback Complete' });
    const { records } = await execute({ sql: 'SELECT version FROM orders WHERE order_id = :id', parameters: [text('id', id, 'UUID')] });
    expect(records).toEqual([[{ longValue: 1 }]]);
  });

  it('listens on 127.0.0.1 and nowhere else on the machine', async () => {
    const { port } = new URL(api.endpoint);
    expect(new URL(api.endpoint).hostname).toBe('127.0.0.1');
    // 127.0.0.2 reaches this host too: a server bound to all addresses would answer there.
    const reached = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ host: '127.0.0.2', port: Number(port) }, () => { socket.destroy(); resolve(true); });
      socket.on('error', () => resolve(false));
    });
    expect(reached).toBe(false);
  });

  it('answers a request without any signature', async () => {
    const answer = await post('/Execute', JSON.stringify({ ...LOCAL_DATA_API_TARGET, sql: 'SELECT 1 AS one' }));
    expect(answer.status).toBe(200);
    expect(answer.body.records).toEqual([[{ longValue: 1 }]]);
  });

  it('answers errors with the HTTP status, x-amzn-ErrorType and a message body', async () => {
    const answer = await post('/Execute', JSON.stringify({ ...LOCAL_DATA_API_TARGET, sql: 'SELECT 1 / 0' }));
    expect(answer).toEqual({ status: 400, errorType: 'DatabaseErrorException', body: { message: 'ERROR: division by zero; SQLState: 22012' } });
  });
});

describe('SQL errors come back as DatabaseErrorException carrying SQLState', () => {
  it('is a DatabaseErrorException with the server text and the SQLSTATE', async () => {
    const id = await seedOrder();
    const error = await thrown(execute({ sql: 'INSERT INTO orders (order_id) VALUES (:id)', parameters: [text('id', id, 'UUID')] }));
    expect(error).toBeInstanceOf(DatabaseErrorException);
    expect(error.message).toMatch(/^ERROR: duplicate key value violates unique constraint "orders_pkey"\n {2}Detail: Key \(order_id\)=\(.+\) already exists\.; SQLState: 23505$/);
  });
});

describe(':name parameters are found as Aurora finds them', () => {
  it('ignores names in quotes, comments, dollar quotes and :: casts', async () => {
    const { records } = await execute({
      sql: "SELECT ':skip' AS quoted, $$ :skip $$ AS dollar, :v::text AS cast /* :skip */ -- :skip",
      parameters: [text('v', 'given')],
    });
    expect(records).toEqual([[{ stringValue: ':skip' }, { stringValue: ' :skip ' }, { stringValue: 'given' }]]);
  });
});

describe('strings are varchar unless a typeHint says otherwise', () => {
  it('fails an untyped string against a uuid column, as on Aurora', async () => {
    const id = await seedOrder();
    const error = await thrown(execute({ sql: 'SELECT 1 FROM orders WHERE order_id = :id', parameters: [text('id', id)] }));
    expect(error).toBeInstanceOf(DatabaseErrorException);
    expect(error.message).toMatch(/operator does not exist: uuid = character varying.*SQLState: 42883/s);
  });

  it('fails an untyped string against a timestamptz column, and takes one with the TIMESTAMP hint', async () => {
    const sql = 'SELECT count(*) AS n FROM orders WHERE updated_at < :at';
    const error = await thrown(execute({ sql, parameters: [text('at', '2999-01-01 00:00:00')] }));
    expect(error).toBeInstanceOf(DatabaseErrorException);
    expect(error.message).toMatch(/timestamp with time zone < character varying/);
    await expect(execute({ sql, parameters: [text('at', '2999-01-01 00:00:00', 'TIMESTAMP')] })).resolves.toMatchObject({ records: [[{ longValue: expect.any(Number) }]] });
  });

  it('binds UUID, DECIMAL, JSON, DATE and TIME hints to their types', async () => {
    const id = await seedOrder();
    const { records } = await execute({
      sql: 'SELECT order_id = :id AS same, amount = :amount AS amount, :doc::jsonb -> \'a\' AS doc, pg_typeof(:day)::text AS day, pg_typeof(:at)::text AS at FROM orders WHERE order_id = :id',
      parameters: [text('id', id, 'UUID'), text('amount', '12.50', 'DECIMAL'), text('doc', '{"a":1}', 'JSON'), text('day', '2024-05-01', 'DATE'), text('at', '12:30:00', 'TIME')],
    });
    expect(records).toEqual([[{ booleanValue: true }, { booleanValue: true }, { stringValue: '1' }, { stringValue: 'date' }, { stringValue: 'time without time zone' }]]);
  });
});

describe('array parameters are refused', () => {
  it('answers BadRequestException', async () => {
    const error = await thrown(execute({ sql: 'SELECT :ids', parameters: [{ name: 'ids', value: { arrayValue: { longValues: [1, 2] } } }] }));
    expect(error).toBeInstanceOf(BadRequestException);
    expect(error.message).toBe('Array parameters are not supported.');
  });
});

describe('multi-statement SQL is refused', () => {
  it('answers ValidationException (HTTP 400), which the SDK gives as its base exception', async () => {
    const error = await thrown(execute({ sql: "SELECT 1; UPDATE orders SET status = 'shipped'" }));
    expect(error).toBeInstanceOf(RDSDataServiceException);
    expect(error.name).toBe('ValidationException');
    expect((error as RDSDataServiceException).$metadata.httpStatusCode).toBe(400);
  });

  it('takes one statement with a trailing semicolon, and semicolons in strings', async () => {
    const { records } = await execute({ sql: "SELECT ';' AS s;" });
    expect(records).toEqual([[{ stringValue: ';' }]]);
  });
});

describe('each transaction has a connection of its own', () => {
  it('runs two transactions on two backends, isolated until commit', async () => {
    const [a, b] = await Promise.all([begin(), begin()]);
    const pid = async (transactionId: string) => (await execute({ sql: 'SELECT pg_backend_pid() AS pid', transactionId })).records?.[0]?.[0]?.longValue;
    expect(await pid(a)).not.toBe(await pid(b));
    const id = randomUUID();
    await execute({ sql: 'INSERT INTO orders (order_id) VALUES (:id)', parameters: [text('id', id, 'UUID')], transactionId: a });
    const seen = async (transactionId?: string) => (await execute({ sql: 'SELECT count(*) AS n FROM orders WHERE order_id = :id', parameters: [text('id', id, 'UUID')], transactionId })).records?.[0]?.[0]?.longValue;
    expect(await seen(b)).toBe(0);
    expect(await seen()).toBe(0);
    await client.send(new CommitTransactionCommand({ ...LOCAL_DATA_API_TARGET, transactionId: a }));
    expect(await seen(b)).toBe(1);
    await client.send(new RollbackTransactionCommand({ ...LOCAL_DATA_API_TARGET, transactionId: b }));
  });
});

describe('a BeginTransaction beyond the open transactions a database takes is refused at once', () => {
  it('answers ServiceUnavailableError without queueing, so no transaction begins after its caller gave up', async () => {
    const { api: small, client: sdk } = await emulator({ maxTransactions: 2 });
    const held = [await begin(sdk), await begin(sdk)];

    // A caller that gives up after 300 ms, as a function that times out or dies does.
    const error = await thrown(sdk.send(new BeginTransactionCommand({ ...LOCAL_DATA_API_TARGET }), { abortSignal: AbortSignal.timeout(300) }));
    await sdk.send(new RollbackTransactionCommand({ ...LOCAL_DATA_API_TARGET, transactionId: held[0] }));
    await new Promise((resolve) => setTimeout(resolve, 300));

    expect(error).toMatchObject({ name: 'ServiceUnavailableError', $metadata: { httpStatusCode: 503 } });
    expect(small.stats().openTransactions).toBe(1);
    await expect(begin(sdk)).resolves.toEqual(expect.any(String));
  });
});

describe('a transaction is rolled back after its idle timeout', () => {
  it('forgets the transaction and its work; the next call gets TransactionNotFoundException', async () => {
    const { client: sdk } = await emulator({ idleTimeoutMs: 150 });
    const transactionId = await begin(sdk);
    const id = randomUUID();
    await execute({ sql: 'INSERT INTO orders (order_id) VALUES (:id)', parameters: [text('id', id, 'UUID')], transactionId }, sdk);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const error = await thrown(execute({ sql: 'SELECT 1', transactionId }, sdk));
    expect(error).toBeInstanceOf(TransactionNotFoundException);
    expect(error.message).toBe(`Transaction ${transactionId} is not found`);
    expect((await fresh.pool.query('SELECT 1 FROM orders WHERE order_id = $1', [id])).rowCount).toBe(0);
  });

  it('keeps a transaction whose calls come within the timeout', async () => {
    const { client: sdk } = await emulator({ idleTimeoutMs: 300 });
    const transactionId = await begin(sdk);
    for (let i = 0; i < 4; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 120));
      await execute({ sql: 'SELECT 1', transactionId }, sdk);
    }
    await expect(sdk.send(new CommitTransactionCommand({ ...LOCAL_DATA_API_TARGET, transactionId }))).resolves.toMatchObject({ transactionStatus: 'Transaction Committed' });
  });
});

describe('setIdleTimeout replaces the idle timeout of the transactions open and to come', () => {
  it('rolls back at once a transaction already idle for the new timeout, keeps one that is not, and ends it at the new timeout', async () => {
    const { api: running, client: sdk } = await emulator({ idleTimeoutMs: 60_000 });
    const idle = await begin(sdk);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const fresher = await begin(sdk);
    running.setIdleTimeout(1000);

    await expect(execute({ sql: 'SELECT 1', transactionId: fresher }, sdk)).resolves.toBeDefined();
    expect(await thrown(execute({ sql: 'SELECT 1', transactionId: idle }, sdk))).toBeInstanceOf(TransactionNotFoundException);
    await vi.waitFor(() => expect(running.stats().openTransactions).toBe(0), { timeout: 5000, interval: 50 });
    expect(await thrown(execute({ sql: 'SELECT 1', transactionId: fresher }, sdk))).toBeInstanceOf(TransactionNotFoundException);
  });

  it('refuses a timeout that is not a whole number of milliseconds from 1', async () => {
    expect(() => api.setIdleTimeout(0)).toThrow('idleTimeoutMs must be a whole number >= 1, but 0 was given.');
  });
});

describe('a transaction is rolled back after a failed statement', () => {
  it('undoes its earlier statements; the next call gets TransactionNotFoundException', async () => {
    const transactionId = await begin();
    const id = randomUUID();
    await execute({ sql: 'INSERT INTO orders (order_id) VALUES (:id)', parameters: [text('id', id, 'UUID')], transactionId });
    expect(await thrown(execute({ sql: 'SELECT 1 / 0', transactionId }))).toBeInstanceOf(DatabaseErrorException);
    expect(await thrown(client.send(new CommitTransactionCommand({ ...LOCAL_DATA_API_TARGET, transactionId })))).toBeInstanceOf(TransactionNotFoundException);
    expect((await fresh.pool.query('SELECT 1 FROM orders WHERE order_id = $1', [id])).rowCount).toBe(0);
  });
});

describe('a second call on a transaction while one runs is refused at once', () => {
  it('answers BadRequestException "Transaction is still running a query" and leaves the first call alone', async () => {
    const transactionId = await begin();
    const slow = execute({ sql: 'SELECT pg_sleep(0.5)', transactionId });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const refusedAt = Date.now();
    const error = await thrown(execute({ sql: 'SELECT 1', transactionId }));
    expect(Date.now() - refusedAt).toBeLessThan(400);
    expect(error).toBeInstanceOf(BadRequestException);
    expect(error.message).toBe('Transaction is still running a query');
    await slow;
    await expect(client.send(new CommitTransactionCommand({ ...LOCAL_DATA_API_TARGET, transactionId }))).resolves.toMatchObject({ transactionStatus: 'Transaction Committed' });
  });
});

describe('statements time out', () => {
  it('answers StatementTimeoutException for a statement past the timeout', async () => {
    const { client: sdk } = await emulator({ statementTimeoutMs: 200 });
    const error = await thrown(execute({ sql: 'SELECT pg_sleep(2)' }, sdk));
    expect(error).toBeInstanceOf(StatementTimeoutException);
  });

  it('ends the transaction of a statement that timed out', async () => {
    const { client: sdk } = await emulator({ statementTimeoutMs: 200 });
    const transactionId = await begin(sdk);
    expect(await thrown(execute({ sql: 'SELECT pg_sleep(2)', transactionId }, sdk))).toBeInstanceOf(StatementTimeoutException);
    expect(await thrown(execute({ sql: 'SELECT 1', transactionId }, sdk))).toBeInstanceOf(TransactionNotFoundException);
  });
});

describe('responses over 1 MiB are refused', () => {
  it('answers BadRequestException for a result over the cap, and serves one under it', async () => {
    const error = await thrown(execute({ sql: "SELECT repeat('x', 60000) AS part FROM generate_series(1, 19)" }));
    expect(error).toBeInstanceOf(BadRequestException);
    expect(error.message).toBe('Database returned more than the allowed response size limit');
    const { records } = await execute({ sql: "SELECT repeat('x', 60000) AS part FROM generate_series(1, 16)" });
    expect(records?.map((record) => record[0]?.stringValue?.length)).toEqual(Array.from({ length: 16 }, () => 60_000));
  });
});

describe('rows over 64 KB are refused', () => {
  it('answers BadRequestException for a row over 64 KB, its columns summed, and serves one at 64 KB', async () => {
    for (const sql of ["SELECT repeat('x', 65537) AS big", "SELECT repeat('x', 40000) AS a, repeat('y', 40000) AS b"]) {
      const error = await thrown(execute({ sql }));
      expect(error).toBeInstanceOf(BadRequestException);
      expect(error.message).toMatch(/more than the allowed 65536 bytes a row/);
    }
    const { records } = await execute({ sql: "SELECT repeat('é', 32768) AS big" });
    expect(records?.[0]?.[0]?.stringValue).toHaveLength(32_768);
  });

  it('counts a bytea by its bytes, not its hex: a 32 KiB part, as the kit reads long values, is served', async () => {
    const { records } = await execute({ sql: "SELECT substring(convert_to(repeat('é', 40000), 'UTF8') FROM 1 FOR 32768) AS part" });
    expect(Buffer.from(records?.[0]?.[0]?.blobValue ?? new Uint8Array())).toHaveLength(32_768);
  });
});

describe('result shapes', () => {
  it('reports numberOfRecordsUpdated for DML without RETURNING', async () => {
    const [a, b] = [await seedOrder(), await seedOrder()];
    const out = await execute({
      sql: "UPDATE orders SET status = 'shipped' WHERE order_id IN (:a, :b)",
      parameters: [text('a', a, 'UUID'), text('b', b, 'UUID')],
    });
    expect(out.numberOfRecordsUpdated).toBe(2);
    expect(out.records).toBeUndefined();
  });

  it('returns the rows of INSERT ... RETURNING as records', async () => {
    const id = randomUUID();
    const out = await execute({ sql: 'INSERT INTO orders (order_id) VALUES (:id) RETURNING version', parameters: [text('id', id, 'UUID')] });
    expect(out.records).toEqual([[{ longValue: 0 }]]);
  });

  it('describes the columns with includeResultMetadata', async () => {
    const { columnMetadata } = await execute({ sql: 'SELECT order_id, version, amount, updated_at FROM orders LIMIT 1', includeResultMetadata: true });
    expect(columnMetadata?.map(({ name, label, typeName, type }) => ({ name, label, typeName, type }))).toEqual([
      { name: 'order_id', label: 'order_id', typeName: 'uuid', type: 1111 },
      { name: 'version', label: 'version', typeName: 'int4', type: 4 },
      { name: 'amount', label: 'amount', typeName: 'numeric', type: 2 },
      { name: 'updated_at', label: 'updated_at', typeName: 'timestamptz', type: 93 },
    ]);
  });

  it('gives a SELECT as one JSON string with formatRecordsAs JSON', async () => {
    const out = await execute({ sql: "SELECT 1 AS n, 'a' AS s, NULL::text AS z, 2.50::numeric AS d", formatRecordsAs: 'JSON' });
    expect(out.records).toBeUndefined();
    expect(JSON.parse(out.formattedRecords!)).toEqual([{ n: 1, s: 'a', z: null, d: '2.50' }]);
  });

  it('returns TIMESTAMPTZ in UTC, without an offset', async () => {
    const { records } = await execute({ sql: "SELECT '2024-05-01 12:00:00.123456+02'::timestamptz AS at, '2024-05-01 12:00:00+02'::timestamptz AS whole" });
    expect(records).toEqual([[{ stringValue: '2024-05-01 10:00:00.123456' }, { stringValue: '2024-05-01 10:00:00' }]]);
  });

  it('returns DECIMAL as a string', async () => {
    const { records } = await execute({ sql: 'SELECT 12345678901234567890.25::numeric AS d' });
    expect(records).toEqual([[{ stringValue: '12345678901234567890.25' }]]);
  });

  it('runs an autocommit Execute as its own transaction', async () => {
    const id = randomUUID();
    await execute({ sql: 'INSERT INTO orders (order_id) VALUES (:id)', parameters: [text('id', id, 'UUID')] });
    expect((await fresh.pool.query('SELECT 1 FROM orders WHERE order_id = $1', [id])).rowCount).toBe(1);
  });
});

describe('the request database is honoured', () => {
  it('runs on the named database of the server, and on the started one when none is named', async () => {
    const name = new URL(other.url).pathname.slice(1);
    const named = await execute({ sql: 'SELECT current_database() AS db', database: name });
    expect(named.records).toEqual([[{ stringValue: name }]]);
    const unnamed = await execute({ sql: 'SELECT current_database() AS db' });
    expect(unnamed.records).toEqual([[{ stringValue: new URL(fresh.url).pathname.slice(1) }]]);
  });

  it('binds a transaction to the database of its BeginTransaction', async () => {
    const name = new URL(other.url).pathname.slice(1);
    const { transactionId } = await client.send(new BeginTransactionCommand({ ...LOCAL_DATA_API_TARGET, database: name }));
    const { records } = await execute({ sql: 'SELECT current_database()', transactionId });
    expect(records).toEqual([[{ stringValue: name }]]);
    await client.send(new RollbackTransactionCommand({ ...LOCAL_DATA_API_TARGET, transactionId }));
  });
});

describe('a paused database answers DatabaseResumingException for a while', () => {
  it('refuses calls while paused and serves them after', async () => {
    const { api: paused, client: sdk } = await emulator();
    paused.pause(300);
    const error = await thrown(execute({ sql: 'SELECT 1' }, sdk));
    expect(error).toBeInstanceOf(DatabaseResumingException);
    expect((error as RDSDataServiceException).$metadata.attempts).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 350));
    await expect(execute({ sql: 'SELECT 1' }, sdk)).resolves.toMatchObject({ records: [[{ longValue: 1 }]] });
  });
});

describe('a latency is added to each call', () => {
  it('delays every call by a fixed latency', async () => {
    const { client: sdk } = await emulator({ latencyMs: 60 });
    const startedAt = performance.now();
    await execute({ sql: 'SELECT 1' }, sdk);
    await execute({ sql: 'SELECT 1' }, sdk);
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(120);
  });

  it('delays a call by a random latency within [min, max], and takes a new one', async () => {
    const { api: slowed, client: sdk } = await emulator({ latencyMs: [40, 60] });
    let startedAt = performance.now();
    await execute({ sql: 'SELECT 1' }, sdk);
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(40);
    slowed.setLatency(0);
    startedAt = performance.now();
    await execute({ sql: 'SELECT 1' }, sdk);
    expect(performance.now() - startedAt).toBeLessThan(40);
  });
});

describe('malformed requests get the service error and the server keeps serving', () => {
  it.each([
    ['bad JSON', '{"resourceArn":', /not valid JSON/],
    ['a body that is not an object', '[1]', /JSON object/],
    ['no resourceArn', JSON.stringify({ secretArn: LOCAL_DATA_API_TARGET.secretArn, sql: 'SELECT 1' }), /resourceArn is required/],
    ['no sql', JSON.stringify({ ...LOCAL_DATA_API_TARGET }), /sql is required/],
    ['a longValue that is a string', JSON.stringify({ ...LOCAL_DATA_API_TARGET, sql: 'SELECT :n', parameters: [{ name: 'n', value: { longValue: 'one' } }] }), /longValue must be an integer/],
    ['includeResultMetadata that is not a boolean', JSON.stringify({ ...LOCAL_DATA_API_TARGET, sql: 'SELECT 1', includeResultMetadata: 'yes' }), /includeResultMetadata must be a boolean/],
  ])('%s: BadRequestException', async (_label, body, message) => {
    const answer = await post('/Execute', body);
    expect(answer.status).toBe(400);
    expect(answer.errorType).toBe('BadRequestException');
    expect(answer.body.message).toMatch(message);
    expect((await execute({ sql: 'SELECT 1 AS alive' })).records).toEqual([[{ longValue: 1 }]]);
  });

  it('answers an unknown transaction with TransactionNotFoundException (HTTP 404)', async () => {
    const error = await thrown(execute({ sql: 'SELECT 1', transactionId: 'no-such-transaction' }));
    expect(error).toBeInstanceOf(TransactionNotFoundException);
    expect((error as RDSDataServiceException).$metadata.httpStatusCode).toBe(404);
  });

  it('answers a missing sql through the SDK with BadRequestException', async () => {
    const error = await thrown(client.send(new ExecuteStatementCommand({ ...LOCAL_DATA_API_TARGET } as ExecuteStatementCommandInput)));
    expect(error).toBeInstanceOf(BadRequestException);
  });
});

describe('stats count the calls per operation', () => {
  it('counts each call once, errors included', async () => {
    const { api: counted, client: sdk } = await emulator();
    const transactionId = await begin(sdk);
    await execute({ sql: 'SELECT 1', transactionId }, sdk);
    await sdk.send(new CommitTransactionCommand({ ...LOCAL_DATA_API_TARGET, transactionId }));
    await thrown(execute({ sql: 'SELECT 1 / 0' }, sdk));
    expect(counted.stats()).toEqual({
      calls: { BeginTransaction: 1, ExecuteStatement: 2, CommitTransaction: 1 },
      total: 4,
      errors: { DatabaseErrorException: 1 },
      openTransactions: 0,
    });
  });
});
