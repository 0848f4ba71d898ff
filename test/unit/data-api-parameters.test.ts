import {
  BeginTransactionCommand,
  CommitTransactionCommand,
  ExecuteStatementCommand,
  RDSDataClient,
  RollbackTransactionCommand,
} from '@aws-sdk/client-rds-data';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { InboxConfigError, sql } from '../../functions/inbox/index.js';
import { dataApiDatabase, dataApiDatabaseFromEnv } from '../../functions/inbox/data-api/index.js';
import { toDataApiStatement, toSqlParameter } from '../../functions/inbox/data-api/parameters.js';

const ID = '6f1c8a3e-1b2c-4d5e-8f90-a1b2c3d4e5f6';
const target = { resourceArn: 'arn:aws:rds:us-east-1:123456789012:cluster:c', secretArn: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:s', database: 'app' };

describe('a sql statement as Data API named parameters', () => {
  it('names the values :p1 to :pn in order, nested fragments included', () => {
    const where = sql`order_id = ${sql.uuid(ID)} AND version > ${1}`;
    expect(toDataApiStatement(sql`UPDATE orders SET status = ${'shipped'} WHERE ${where}`)).toEqual({
      sql: 'UPDATE orders SET status = :p1 WHERE order_id = :p2 AND version > :p3',
      parameters: [
        { name: 'p1', value: { stringValue: 'shipped' } },
        { name: 'p2', value: { stringValue: ID }, typeHint: 'UUID' },
        { name: 'p3', value: { longValue: 1 } },
      ],
    });
  });

  it('keeps a value next to a cast as a separate parameter', () => {
    expect(toDataApiStatement(sql`SELECT ${'5'}::int`).sql).toBe('SELECT :p1::int');
  });
});

describe('each value gets the Data API field and typeHint it needs', () => {
  it.each([
    ['a string', 'text', { stringValue: 'text' }],
    ['true', true, { booleanValue: true }],
    ['a safe integer', 42, { longValue: 42 }],
    ['a negative integer', -7, { longValue: -7 }],
    ['a fraction', 1.5, { doubleValue: 1.5 }],
    ['an integer beyond 2^53', 2 ** 60, { doubleValue: 2 ** 60 }],
    ['a bigint in the safe range', 12n, { longValue: 12 }],
  ])('%s', (_label, value, field) => {
    expect(toSqlParameter('p1', value)).toEqual({ name: 'p1', value: field });
  });

  it('sends a bigint beyond the safe range as a DECIMAL string, so no digit is lost on the way', () => {
    expect(toSqlParameter('p1', 9007199254740993n)).toEqual({ name: 'p1', value: { stringValue: '9007199254740993' }, typeHint: 'DECIMAL' });
  });

  it('sends null as isNull alone', () => {
    expect(toSqlParameter('p1', null)).toEqual({ name: 'p1', value: { isNull: true } });
  });

  it('sends a Date as a UTC TIMESTAMP', () => {
    expect(toSqlParameter('p1', new Date('2024-05-01T12:34:56.789Z'))).toEqual({
      name: 'p1', value: { stringValue: '2024-05-01 12:34:56.789' }, typeHint: 'TIMESTAMP',
    });
  });

  it('sends bytes as a blobValue', () => {
    const bytes = new Uint8Array([0, 1, 254]);
    expect(toSqlParameter('p1', bytes)).toEqual({ name: 'p1', value: { blobValue: bytes } });
  });

  it.each([
    ['uuid', sql.uuid(ID), 'UUID', ID],
    ['json', sql.json({ a: [1] }), 'JSON', '{"a":[1]}'],
    ['timestamp', sql.timestamp('2024-05-01T00:00:00Z'), 'TIMESTAMP', '2024-05-01 00:00:00.000'],
    ['date', sql.date('2024-05-01'), 'DATE', '2024-05-01'],
    ['time', sql.time('12:30:00'), 'TIME', '12:30:00'],
    ['decimal', sql.decimal('12.50'), 'DECIMAL', '12.50'],
  ])('sends sql.%s with its typeHint', (_label, value, typeHint, text) => {
    expect(toSqlParameter('p1', value)).toEqual({ name: 'p1', value: { stringValue: text }, typeHint });
  });
});

describe('how the driver shapes its calls', () => {
  const mock = mockClient(RDSDataClient);
  afterEach(() => mock.reset());

  it('sends an autocommit statement as one ExecuteStatement with result metadata and exact longs', async () => {
    mock.on(ExecuteStatementCommand).resolves({ numberOfRecordsUpdated: 1 });
    const db = dataApiDatabase({ ...target, client: new RDSDataClient({ region: 'us-east-1' }) });
    await db.query(sql`UPDATE orders SET status = ${'shipped'}`);
    expect(mock.commandCalls(ExecuteStatementCommand).map((call) => call.args[0].input)).toEqual([{
      ...target,
      sql: 'UPDATE orders SET status = :p1',
      parameters: [{ name: 'p1', value: { stringValue: 'shipped' } }],
      transactionId: undefined,
      includeResultMetadata: true,
      resultSetOptions: { longReturnType: 'STRING', decimalReturnType: 'STRING' },
    }]);
  });

  it('runs a transaction as BeginTransaction on the database, statements with its id, then CommitTransaction', async () => {
    mock.on(BeginTransactionCommand).resolves({ transactionId: 'tx-1' });
    mock.on(ExecuteStatementCommand).resolves({ numberOfRecordsUpdated: 1 });
    mock.on(CommitTransactionCommand).resolves({ transactionStatus: 'Transaction Committed' });
    const db = dataApiDatabase({ ...target, client: new RDSDataClient({ region: 'us-east-1' }) });
    await db.transaction((tx) => tx.query(sql`SELECT 1`));
    expect(mock.commandCalls(BeginTransactionCommand)[0]?.args[0].input).toEqual({ resourceArn: target.resourceArn, secretArn: target.secretArn, database: 'app' });
    expect(mock.commandCalls(ExecuteStatementCommand)[0]?.args[0].input.transactionId).toBe('tx-1');
    expect(mock.commandCalls(CommitTransactionCommand)[0]?.args[0].input).toEqual({ resourceArn: target.resourceArn, secretArn: target.secretArn, transactionId: 'tx-1' });
    expect(mock.commandCalls(RollbackTransactionCommand)).toHaveLength(0);
  });
});

describe('the driver refuses a configuration that cannot work', () => {
  it.each(['resourceArn', 'secretArn', 'database'] as const)('names a missing %s', (field) => {
    expect(() => dataApiDatabase({ ...target, [field]: '' })).toThrow(new RegExp(`needs ${field}`));
  });

  it('names the environment variables that are missing', () => {
    expect(() => dataApiDatabaseFromEnv({ env: { CLUSTER_ARN: target.resourceArn } })).toThrow(InboxConfigError);
    expect(() => dataApiDatabaseFromEnv({ env: { CLUSTER_ARN: target.resourceArn } })).toThrow(/^Set SECRET_ARN, DATABASE_NAME in/);
  });

  it('reads CLUSTER_ARN, SECRET_ARN and DATABASE_NAME', async () => {
    const mock = mockClient(RDSDataClient);
    mock.on(ExecuteStatementCommand).resolves({});
    const db = dataApiDatabaseFromEnv({
      env: { CLUSTER_ARN: target.resourceArn, SECRET_ARN: target.secretArn, DATABASE_NAME: 'app' },
      client: new RDSDataClient({ region: 'us-east-1' }),
    });
    await db.query(sql`SELECT 1`);
    expect(mock.commandCalls(ExecuteStatementCommand)[0]?.args[0].input).toMatchObject(target);
    mock.restore();
  });

  it('refuses a resumeRetry that would never try', () => {
    expect(() => dataApiDatabase({ ...target, resumeRetry: { attempts: 0 } })).toThrow(/resumeRetry.attempts/);
  });
});
