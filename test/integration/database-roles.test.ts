import { randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { DatabaseErrorException, ExecuteStatementCommand, type RDSDataClient } from '@aws-sdk/client-rds-data';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationsHandler } from '../../functions/migrate/index.js';
import type { MigrationsResourceResponse } from '../../functions/migrate/on-event.js';
import { RoleSecretError, scramVerifier } from '../../functions/database-roles/index.js';
import { ROLE_SECRETS_ENV } from '../../functions/migrate/role-secrets.js';
import { processBatch, type OutboxContext, type Outcome } from '../../functions/inbox/index.js';
import { relayOutbox, type Publisher } from '../../functions/inbox/outbox/index.js';
import { cleanupInbox, cleanupOutbox } from '../../functions/inbox/cleanup/index.js';
import { dataApiDatabase } from '../../functions/inbox/data-api/index.js';
import { recordPaymentOptions } from '../../functions/order-worker/record-payment.js';
import { shipOrderOptions } from '../../functions/order-worker/ship-order.js';
import { INBOX_DATABASE_ROLES } from '../../lib/database-roles.js';
import { migrationsHash } from '../../lib/stack/migrations-hash.js';
import { LOCAL_DATA_API_TARGET, localDataApiClient, startDataApi, type DataApiCredentials, type RunningDataApi } from '../../local/data-api/index.js';
import { passwordCheckingDatabase, type FreshDatabase } from '../support/database.js';
import { inboxRows, orderRow, seedOrders } from '../support/orders.js';
import { failedIds, lambdaContext, redelivery, sqsEvent, sqsRecord } from '../support/sqs-events.js';
import { thrown } from '../support/thrown.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations', import.meta.url));
const secretArn = (name: string) => `arn:aws:secretsmanager:us-east-1:123456789012:secret:${name}`;
const SECRET = { owner: secretArn('owner'), worker: secretArn('worker'), cleanup: secretArn('cleanup') } as const;
const ROLE_SECRETS = JSON.stringify({ [INBOX_DATABASE_ROLES.worker]: SECRET.worker, [INBOX_DATABASE_ROLES.cleanup]: SECRET.cleanup });
/** As Secrets Manager generates them: printable ASCII. */
const newPassword = () => randomBytes(24).toString('base64url');

/**
 * Secrets Manager of this file: the emulator signs each Data API call in with the secret it names,
 * and the migrate function reads the same values, as both read the one service in AWS.
 */
const secrets: Record<string, DataApiCredentials> = {};
const readSecret = async (arn: string) => {
  const found = secrets[arn];
  if (found === undefined) throw Object.assign(new Error("Secrets Manager can't find the specified secret."), { name: 'ResourceNotFoundException' });
  return JSON.stringify(found);
};
const migrateHandler = migrationsHandler({ readSecret });

let target: FreshDatabase;
/** A superuser pool on the target database, for arranging and checking. */
let pool: pg.Pool;
let database: string;
let api: RunningDataApi;
let client: RDSDataClient;
/** The answer to the Create that set the database up. */
let created: MigrationsResourceResponse;

/** The custom resource event of this file's deploy: the properties the stack gives it. */
function deployEvent(requestType: 'Create' | 'Update'): CloudFormationCustomResourceEvent {
  const properties = {
    ServiceToken: 'token', MigrationsHash: migrationsHash(MIGRATIONS_DIR), ClusterArn: LOCAL_DATA_API_TARGET.resourceArn,
    DatabaseName: database, RoleSecrets: process.env[ROLE_SECRETS_ENV],
  };
  const common = {
    ServiceToken: 'token', ResponseURL: 'https://cloudformation-custom-resource-response.example/', RequestId: randomUUID(),
    StackId: 'arn:aws:cloudformation:us-east-1:123456789012:stack/SqsInbox-dev/1', LogicalResourceId: 'Migrations',
    ResourceType: 'Custom::InboxMigrations', ResourceProperties: properties,
  };
  return requestType === 'Create'
    ? { ...common, RequestType: 'Create' }
    : { ...common, RequestType: 'Update', PhysicalResourceId: `inbox-migrations:${database}`, OldResourceProperties: properties };
}

/** The kit's Data API driver signed in with one of the secrets. */
const signedIn = (secret: string) => dataApiDatabase({ resourceArn: LOCAL_DATA_API_TARGET.resourceArn, secretArn: secret, database, client });

/** One statement through the real SDK, signed in with `secret`. */
const execute = (secret: string, sql: string) =>
  client.send(new ExecuteStatementCommand({ resourceArn: LOCAL_DATA_API_TARGET.resourceArn, secretArn: secret, database, sql }));

/** What a call threw. */
/** The call fails as Aurora fails a statement the role has no privilege for. */
async function expectInsufficientPrivilege(promise: Promise<unknown>): Promise<void> {
  const error = await thrown(promise);
  expect(error).toBeInstanceOf(DatabaseErrorException);
  expect(error.message).toMatch(/permission denied .*; SQLState: 42501$/s);
}

/** A direct superuser connection on the target database, for arranging and checking. */
async function admin<T>(work: (connection: pg.Client) => Promise<T>): Promise<T> {
  const connection = new pg.Client({ connectionString: target.url });
  await connection.connect();
  try {
    return await work(connection);
  } finally {
    await connection.end();
  }
}

beforeAll(async () => {
  // Passwords are what this file checks: a server of its own, whatever DATABASE_URL says.
  target = await passwordCheckingDatabase({ empty: true });
  database = decodeURIComponent(new URL(target.url).pathname.slice(1));
  pool = target.pool;
  const owner = new URL(target.url);
  secrets[SECRET.owner] = { username: decodeURIComponent(owner.username), password: decodeURIComponent(owner.password) };
  secrets[SECRET.worker] = { username: INBOX_DATABASE_ROLES.worker, password: newPassword() };
  secrets[SECRET.cleanup] = { username: INBOX_DATABASE_ROLES.cleanup, password: newPassword() };
  api = await startDataApi({ databaseUrl: target.url, secrets });
  client = localDataApiClient(api.endpoint);
  // The migrate function's environment in AWS, pointed at the emulator.
  Object.assign(process.env, {
    CLUSTER_ARN: LOCAL_DATA_API_TARGET.resourceArn,
    SECRET_ARN: SECRET.owner,
    DATABASE_NAME: database,
    [ROLE_SECRETS_ENV]: ROLE_SECRETS,
    AWS_ENDPOINT_URL_RDS_DATA: api.endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    MIGRATIONS_DIR,
  });
  created = await migrateHandler(deployEvent('Create'), lambdaContext(300_000));
});

afterAll(async () => {
  client?.destroy();
  await api?.close();
  await target?.close();
});

describe('the migrate function gives each function role its secret\'s password', () => {
  it('applies the migrations, then sets the roles, reporting their names and never a password', async () => {
    const again = await migrateHandler(deployEvent('Update'), lambdaContext(300_000));

    expect(created.Data).toMatchObject({ AlreadyApplied: '', Roles: 'inbox_worker,inbox_cleanup' });
    expect(created.Data?.Applied).toContain('0003_database_roles.sql');
    expect(again.Data).toMatchObject({ Applied: '', Roles: 'inbox_worker,inbox_cleanup' });
    for (const response of [created, again]) {
      for (const { password } of Object.values(secrets)) if (password !== '') expect(JSON.stringify(response)).not.toContain(password);
    }
    const roles = await admin((connection) => connection.query<{ rolname: string; rolcanlogin: boolean }>(
      'SELECT rolname, rolcanlogin FROM pg_roles WHERE rolname = ANY($1) ORDER BY rolname', [Object.values(INBOX_DATABASE_ROLES)]));
    expect(roles.rows).toEqual([{ rolname: 'inbox_cleanup', rolcanlogin: true }, { rolname: 'inbox_worker', rolcanlogin: true }]);
  });

  it('stores each password as the SCRAM-SHA-256 verifier of the secret\'s password, which the Data API needs', async () => {
    const stored = await admin((connection) => connection.query<{ rolname: string; rolpassword: string }>(
      'SELECT rolname, rolpassword FROM pg_authid WHERE rolname = ANY($1)', [Object.values(INBOX_DATABASE_ROLES)]));
    expect(stored.rows).toHaveLength(2);
    for (const { rolname, rolpassword } of stored.rows) {
      const [, iterations, salt] = /^SCRAM-SHA-256\$(\d+):([^$]+)\$/.exec(rolpassword) ?? [];
      const secret = rolname === INBOX_DATABASE_ROLES.worker ? SECRET.worker : SECRET.cleanup;
      expect(rolpassword).toBe(scramVerifier(secrets[secret]!.password, { salt: Buffer.from(salt!, 'base64'), iterations: Number(iterations) }));
    }
  });

  it('takes up a changed secret on its next run: the old password stops working, the new one signs in', async () => {
    const previous = secrets[SECRET.cleanup]!;
    secrets[SECRET.cleanup] = { ...previous, password: newPassword() };
    const before = await thrown(execute(SECRET.cleanup, 'SELECT 1'));
    expect(before.name).toBe('BadRequestException');
    expect(before.message).toMatch(/password authentication failed for user "inbox_cleanup"/);

    await migrateHandler(deployEvent('Update'), lambdaContext(300_000));

    expect((await execute(SECRET.cleanup, 'SELECT current_user AS who')).records).toEqual([[{ stringValue: 'inbox_cleanup' }]]);
  });

  it('refuses a role secret of another user (the owner\'s) before touching the database', async () => {
    process.env[ROLE_SECRETS_ENV] = JSON.stringify({ [INBOX_DATABASE_ROLES.worker]: SECRET.owner });
    api.resetStats();
    try {
      const error = await thrown(migrateHandler(deployEvent('Update'), lambdaContext(300_000)));
      expect(error).toBeInstanceOf(RoleSecretError);
      expect(error.message).toMatch(/holds the username .* not inbox_worker or inbox_worker_clone: give the role its own secret/);
      if (secrets[SECRET.owner]!.password !== '') expect(error.message).not.toContain(secrets[SECRET.owner]!.password);
      expect(api.stats().total).toBe(0);
    } finally {
      process.env[ROLE_SECRETS_ENV] = ROLE_SECRETS;
    }
  });

  it('refuses a secret it cannot read, naming the secret and the permission it needs', async () => {
    process.env[ROLE_SECRETS_ENV] = JSON.stringify({ [INBOX_DATABASE_ROLES.worker]: secretArn('missing') });
    try {
      await expect(migrateHandler(deployEvent('Update'), lambdaContext(300_000)))
        .rejects.toThrow(/secret:missing of role inbox_worker could not be read \(ResourceNotFoundException.*secretsmanager:GetSecretValue/);
    } finally {
      process.env[ROLE_SECRETS_ENV] = ROLE_SECRETS;
    }
  });
});

describe('the worker, signed in with its own secret, does all the order worker does', () => {
  it('ships an order, records a payment, rejects a bad message and sees a duplicate', async () => {
    const worker = signedIn(SECRET.worker);
    const outcomes: Outcome[] = [];
    const [orderId] = await seedOrders(pool, 1);
    const ship = sqsRecord({ orderId }, { key: `ship-${orderId}` });
    const broken = sqsRecord({ orderId: 'not-a-uuid' }, { key: `broken-${orderId}` });
    const payment = sqsRecord({ paymentId: randomUUID(), orderId, amount: '7.25' }, { key: `payment-${orderId}` });

    const shipped = await processBatch(sqsEvent(ship, broken), lambdaContext(), shipOrderOptions(worker, { onOutcome: (o) => outcomes.push(o) }));
    const paid = await processBatch(sqsEvent(payment, redelivery(payment)), lambdaContext(), recordPaymentOptions(worker, { onOutcome: (o) => outcomes.push(o) }));

    expect([...failedIds(shipped), ...failedIds(paid)]).toEqual([]);
    expect(outcomes.map((o) => o.kind).sort()).toEqual(['duplicate', 'processed', 'processed', 'rejected']);
    expect(await orderRow(pool, orderId!)).toMatchObject({ status: 'shipped', version: 1, paid_total: '7.25' });
    expect((await inboxRows(pool, 'ship-order')).get(`broken-${orderId}`)?.status).toBe('rejected');
  });

  it.each([
    ['delete inbox rows', 'DELETE FROM consumed_message'],
    ['update inbox rows', "UPDATE consumed_message SET status = 'processed'"],
    ['change an order\'s amount', 'UPDATE orders SET amount = 0'],
    ['delete orders', 'DELETE FROM orders'],
    ['read payments', 'SELECT * FROM order_payments'],
    ['read the migrations', 'SELECT * FROM schema_migrations'],
    ['set a role\'s password', "SELECT inbox_set_role_password('inbox_cleanup', 'x')"],
    ['create a table', 'CREATE TABLE worker_probe (id int)'],
  ])('cannot %s: DatabaseErrorException with SQLState 42501', async (_what, statement) => {
    await expectInsufficientPrivilege(execute(SECRET.worker, statement));
  });
});

describe('the cleanup, signed in with its own secret, only deletes old inbox rows', () => {
  it('deletes the rows past the retention with the cleanup\'s own code and keeps the others', async () => {
    const consumer = `cleanup-${randomUUID().slice(0, 8)}`;
    await pool.query(`INSERT INTO consumed_message (consumer_name, message_id, payload_hash, processed_at)
      SELECT $1, 'old-' || i, 'h', now() - interval '30 days' FROM generate_series(1, 5) AS i
      UNION ALL SELECT $1, 'new', 'h', now()`, [consumer]);

    const report = await cleanupInbox(signedIn(SECRET.cleanup), { retentionMs: 21 * 86_400_000, batchSize: 2 });

    expect(report).toMatchObject({ deleted: 5, done: true });
    expect([...(await inboxRows(pool, consumer)).keys()]).toEqual(['new']);
  });

  it.each([
    ['update orders', "UPDATE orders SET status = 'cancelled'"],
    ['read orders', 'SELECT * FROM orders'],
    ['add inbox rows', "INSERT INTO consumed_message (consumer_name, message_id, payload_hash) VALUES ('c', 'm', 'h')"],
    ['change an inbox row\'s status', "UPDATE consumed_message SET status = 'rejected'"],
    ['read payload hashes', 'SELECT payload_hash FROM consumed_message'],
    ['delete payments', 'DELETE FROM order_payments'],
  ])('cannot %s: DatabaseErrorException with SQLState 42501', async (_what, statement) => {
    await expectInsufficientPrivilege(execute(SECRET.cleanup, statement));
  });
});

describe('inbox_set_role_password takes only what it is for', () => {
  const verifier = () => scramVerifier(newPassword());
  const call = (role: string | null, value: string) =>
    thrown(admin((connection) => connection.query('SELECT inbox_set_role_password($1, $2)', [role, value]))) as Promise<pg.DatabaseError>;

  it('refuses a plain-text password, without repeating it', async () => {
    const plain = newPassword();
    const error = await call(INBOX_DATABASE_ROLES.worker, plain);
    expect(error.code).toBe('22023');
    expect(error.message).toMatch(/must be given as a SCRAM-SHA-256 verifier/);
    expect(`${error.message} ${error.where ?? ''}`).not.toContain(plain);
  });

  it('refuses a privileged role or the caller, so the owner cannot be taken over', async () => {
    const owner = await admin(async (connection) => (await connection.query<{ who: string }>('SELECT current_user AS who')).rows[0]!.who);
    const error = await call(owner, verifier());
    expect(error.code).toBe('42501');
    expect(error.message).toMatch(/is privileged or the caller/);
  });

  it('refuses a role no migration created, and a name that is not a plain identifier', async () => {
    expect((await call('inbox_no_such_role', verifier())).code).toBe('42704');
    expect((await call('Robert"; DROP ROLE x; --', verifier())).code).toBe('22023');
    expect((await call(null, verifier())).code).toBe('22023');
  });
});

describe('the outbox under the reference roles (0005)', () => {
  const RELAY_SECRET = secretArn('relay');
  /** A publisher that takes everything at the first try, or leaves everything (`retry`), as `taking` says. */
  const publisher = (taking: { now: boolean }): Publisher => ({
    fifo: true, maxBatchEntries: 10,
    publish: async (entries) => entries.map(() => (taking.now ? { kind: 'sent' } : { kind: 'retry', reason: 'not yet' })),
  });
  const rowsOf = async (consumer: string) => (await pool.query<{ dispatched_at: Date | null }>(
    'SELECT dispatched_at FROM outbox_message WHERE consumer_name = $1', [consumer])).rows;

  beforeAll(async () => {
    // The relay role has no secret in the stack yet: give it one here, as the migrate function will.
    secrets[RELAY_SECRET] = { username: 'inbox_relay', password: newPassword() };
    await admin((connection) => connection.query('SELECT inbox_set_role_password($1, $2)', ['inbox_relay', scramVerifier(secrets[RELAY_SECRET]!.password)]));
  });

  it('the worker writes FIFO rows in its claim, sends and marks them; the relay sends what it left; the cleanup purges the dispatched', async () => {
    const consumer = `outbox-roles-${randomUUID().slice(0, 8)}`;
    const taking = { now: false };
    const options = (db: ReturnType<typeof signedIn>) => ({
      consumer, db,
      handle: async (order: { orderId: string }, { outbox }: { outbox: OutboxContext }) => {
        await outbox.send({ target: 'shipped', body: order, groupId: 'customer-1' });
      },
      outbox: { targets: { shipped: publisher(taking) }, maxAttempts: 1 },
    });

    await processBatch(sqsEvent(sqsRecord({ orderId: 'a' }, { key: `a-${consumer}` })), lambdaContext(), options(signedIn(SECRET.worker)));
    expect(await rowsOf(consumer)).toEqual([{ dispatched_at: null }]);
    taking.now = true;
    await processBatch(sqsEvent(sqsRecord({ orderId: 'b' }, { key: `b-${consumer}` })), lambdaContext(), options(signedIn(SECRET.worker)));
    await pool.query(`UPDATE outbox_message SET created_at = now() - interval '1 hour', claimed_until = now() WHERE consumer_name = $1`, [consumer]);
    await pool.query(`UPDATE outbox_group SET held_until = now() WHERE consumer_name = $1`, [consumer]);

    const relayed = await relayOutbox(signedIn(RELAY_SECRET), { shipped: publisher(taking) }, { consumer });
    expect(relayed).toMatchObject({ sent: 2, failed: 0, undispatched: 0 });
    await pool.query(`UPDATE outbox_message SET dispatched_at = now() - interval '30 days' WHERE consumer_name = $1`, [consumer]);
    const cleaned = await cleanupOutbox(signedIn(SECRET.cleanup), { retentionMs: 7 * 86_400_000 });

    expect(cleaned.deleted).toBeGreaterThanOrEqual(2);
    expect(await rowsOf(consumer)).toEqual([]);
  });

  it.each([
    ['the worker', SECRET.worker, 'DELETE FROM outbox_message'],
    ['the worker', SECRET.worker, "UPDATE outbox_message SET claimed_by = 'someone else'"],
    ['the relay', RELAY_SECRET, "INSERT INTO outbox_message (id, consumer_name, message_key, target, body, size_bytes) VALUES (gen_random_uuid(), 'c', 'k', 't', 'b', 1)"],
    ['the relay', RELAY_SECRET, 'DELETE FROM outbox_message'],
    ['the relay', RELAY_SECRET, 'SELECT * FROM consumed_message'],
    ['the cleanup', SECRET.cleanup, 'SELECT body FROM outbox_message'],
    ['the cleanup', SECRET.cleanup, "UPDATE outbox_message SET failed_at = now()"],
  ])('%s cannot run %s: SQLState 42501', async (_who, secret, statement) => {
    await expectInsufficientPrivilege(execute(secret, statement));
  });
});
