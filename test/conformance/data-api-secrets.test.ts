import { randomBytes, randomUUID } from 'node:crypto';
import {
  BeginTransactionCommand,
  CommitTransactionCommand,
  ExecuteStatementCommand,
  SecretsErrorException,
  type RDSDataClient,
} from '@aws-sdk/client-rds-data';
import { PutSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scramVerifier } from '../../functions/database-roles/index.js';
import { LOCAL_DATA_API_TARGET, localDataApiClient, startDataApi, type DataApiCredentials, type RunningDataApi } from '../../local/data-api/index.js';
import { secretsManagerSource } from '../../local/secrets-manager/index.js';
import { passwordCheckingDatabase, type FreshDatabase } from '../support/database.js';
import { startTestSecretsManager, type TestSecretsManager } from '../support/secrets-manager.js';
import { thrown } from '../support/thrown.js';

const secretArn = (name: string) => `arn:aws:secretsmanager:us-east-1:123456789012:secret:${name}`;
const SECRET = { reader: secretArn('reader'), owner: secretArn('owner'), wrong: secretArn('wrong-password') } as const;
// Roles belong to the server, not to this file's database: a name of this run's own, dropped after.
const READER = `emulator_reader_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
const READER_PASSWORD = randomBytes(18).toString('base64url');

let fresh: FreshDatabase;
const started: { api: RunningDataApi; client: RDSDataClient }[] = [];
const secrets: Record<string, DataApiCredentials> = {};

async function emulator(withSecrets: boolean | TestSecretsManager) {
  const source = typeof withSecrets === 'object' ? secretsManagerSource(withSecrets.secretsManager.endpoint) : undefined;
  const api = await startDataApi({ databaseUrl: fresh.url, ...(withSecrets === true ? { secrets } : source ? { secrets: source } : {}) });
  const client = localDataApiClient(api.endpoint);
  started.push({ api, client });
  return client;
}

const execute = (client: RDSDataClient, secret: string, sql: string, transactionId?: string) =>
  client.send(new ExecuteStatementCommand({ resourceArn: LOCAL_DATA_API_TARGET.resourceArn, secretArn: secret, sql, transactionId }));
const currentUser = async (client: RDSDataClient, secret: string, transactionId?: string) =>
  (await execute(client, secret, 'SELECT current_user AS who', transactionId)).records?.[0]?.[0]?.stringValue;

beforeAll(async () => {
  fresh = await passwordCheckingDatabase();
  // The name is this file's own making; the password goes bound, through the migrations' helper.
  await fresh.pool.query(`CREATE ROLE ${READER} NOLOGIN`);
  await fresh.pool.query('SELECT inbox_set_role_password($1, $2)', [READER, scramVerifier(READER_PASSWORD)]);
  const owner = new URL(fresh.url);
  secrets[SECRET.reader] = { username: READER, password: READER_PASSWORD };
  secrets[SECRET.owner] = { username: decodeURIComponent(owner.username), password: decodeURIComponent(owner.password) };
  secrets[SECRET.wrong] = { username: READER, password: `${READER_PASSWORD}-not` };
});

afterAll(async () => {
  for (const { api, client } of started) {
    client.destroy();
    await api.close();
  }
  await fresh.pool.query(`DROP ROLE IF EXISTS ${READER}`);
  await fresh.close();
});

describe('with secrets, each call signs in as the user of the secret it names', () => {
  it('runs a statement as that user', async () => {
    const client = await emulator(true);
    expect(await currentUser(client, SECRET.reader)).toBe(READER);
    expect(await currentUser(client, SECRET.owner)).toBe(secrets[SECRET.owner]!.username);
  });

  it('runs a transaction as the user of the secret that began it', async () => {
    const client = await emulator(true);
    const target = { resourceArn: LOCAL_DATA_API_TARGET.resourceArn, secretArn: SECRET.reader };
    const { transactionId } = await client.send(new BeginTransactionCommand(target));
    expect(await currentUser(client, SECRET.reader, transactionId)).toBe(READER);
    await client.send(new CommitTransactionCommand({ ...target, transactionId }));
  });

  it('answers a secret it does not know with SecretsErrorException (HTTP 400), the SDK\'s class for "the secret provided wasn\'t found"', async () => {
    const client = await emulator(true);
    const error = await thrown(execute(client, secretArn('unknown'), 'SELECT 1'));
    expect(error).toBeInstanceOf(SecretsErrorException);
    expect(error.$metadata?.httpStatusCode).toBe(400);
    const begin = await thrown(client.send(new BeginTransactionCommand({ resourceArn: LOCAL_DATA_API_TARGET.resourceArn, secretArn: secretArn('unknown') })));
    expect(begin).toBeInstanceOf(SecretsErrorException);
  });

  it('answers a password the database refuses with BadRequestException "FATAL: password authentication failed"', async () => {
    const client = await emulator(true);
    const error = await thrown(execute(client, SECRET.wrong, 'SELECT 1'));
    expect(error.name).toBe('BadRequestException');
    expect(error.message).toBe(`FATAL: password authentication failed for user "${READER}"`);
  });

  it('reads the secret on every call, so a corrected password is used by the next one', async () => {
    const client = await emulator(true);
    const wrong = secrets[SECRET.wrong]!;
    await expect(execute(client, SECRET.wrong, 'SELECT 1')).rejects.toThrow(/password authentication failed/);
    secrets[SECRET.wrong] = { ...wrong, password: READER_PASSWORD };
    try {
      expect(await currentUser(client, SECRET.wrong)).toBe(READER);
    } finally {
      secrets[SECRET.wrong] = wrong;
    }
  });
});

describe('without secrets, every call signs in as the user of the emulator\'s URL', () => {
  it('whatever secret it names', async () => {
    const client = await emulator(false);
    const urlUser = decodeURIComponent(new URL(fresh.url).username);
    expect(await currentUser(client, LOCAL_DATA_API_TARGET.secretArn)).toBe(urlUser);
    expect(await currentUser(client, secretArn('unknown'))).toBe(urlUser);
  });
});

describe('with secrets read from Secrets Manager (the local stand-in), each call signs in with its secret\'s AWSCURRENT version', () => {
  let secretsManager: TestSecretsManager;

  beforeAll(async () => {
    secretsManager = await startTestSecretsManager();
  });

  afterAll(async () => {
    await secretsManager.close();
  });

  it('runs a statement as the secret\'s user, reading the secret from Secrets Manager on each call', async () => {
    const client = await emulator(secretsManager);
    const arn = await secretsManager.createSecret('reader', { username: READER, password: READER_PASSWORD, engine: 'postgres' });
    const before = secretsManager.secretsManager.stats().calls.GetSecretValue ?? 0;
    expect(await currentUser(client, arn)).toBe(READER);
    expect(await currentUser(client, arn)).toBe(READER);
    expect(secretsManager.secretsManager.stats().calls.GetSecretValue).toBe(before + 2);
  });

  it('signs the next call in with a new AWSCURRENT version, and refuses it when the database does not know that password', async () => {
    const client = await emulator(secretsManager);
    const arn = await secretsManager.createSecret('rotated', { username: READER, password: READER_PASSWORD });
    expect(await currentUser(client, arn)).toBe(READER);
    await secretsManager.client.send(new PutSecretValueCommand({ SecretId: arn, SecretString: JSON.stringify({ username: READER, password: `${READER_PASSWORD}-new` }) }));
    await expect(execute(client, arn, 'SELECT 1')).rejects.toThrow(/password authentication failed/);
    await secretsManager.client.send(new PutSecretValueCommand({ SecretId: arn, SecretString: JSON.stringify({ username: READER, password: READER_PASSWORD }) }));
    expect(await currentUser(client, arn)).toBe(READER);
  });

  it('answers a secret Secrets Manager does not have, or one that is not a username and password, with SecretsErrorException', async () => {
    const client = await emulator(secretsManager);
    expect(await thrown(execute(client, secretArn('not-in-secrets-manager'), 'SELECT 1'))).toBeInstanceOf(SecretsErrorException);
    const text = await secretsManager.createSecret('text', 'not json');
    const error = await thrown(execute(client, text, 'SELECT 1'));
    expect(error).toBeInstanceOf(SecretsErrorException);
    expect(error.message).toMatch(/not a JSON secret/);
  });
});
