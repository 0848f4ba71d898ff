import { randomBytes, randomUUID } from 'node:crypto';
import { DatabaseErrorException, ExecuteStatementCommand, type RDSDataClient } from '@aws-sdk/client-rds-data';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RoleSecretError, scramVerifier } from '../../functions/database-roles/index.js';
import { processBatch, sql, type OutboxContext, type Outcome } from '../../functions/inbox/index.js';
import { cleanupInbox, cleanupKept, cleanupOutbox } from '../../functions/inbox/cleanup/index.js';
import { relayOutbox, type Publisher } from '../../functions/inbox/outbox/index.js';
import { dataApiDatabase } from '../../functions/inbox/data-api/index.js';
import { migrationsHandler } from '../../functions/migrate/index.js';
import type { MigrationsResourceResponse } from '../../functions/migrate/on-event.js';
import { KIT_ROLE_COMMENT } from '../../functions/inbox/internal.js';
import { DatabaseRoleError } from '../../functions/inbox/migrations/index.js';
import { recordPaymentOptions } from '../../functions/order-worker/record-payment.js';
import { shipOrderOptions } from '../../functions/order-worker/ship-order.js';
import { KIT_MIGRATIONS_DIR, migrationsHash } from '../../lib/database/migration-folders.js';
import { LOCAL_DATA_API_TARGET, localDataApiClient, startDataApi, type DataApiCredentials, type RunningDataApi } from '../../local/data-api/index.js';
import { REFERENCE_MIGRATIONS_DIR } from '../../demo/reference-database.js';
import { passwordCheckingDatabase, type FreshDatabase } from '../support/database.js';
import { migrationsEvent } from '../support/migrations-event.js';
import { inboxRows, orderRow, seedOrders, uniqueConsumer } from '../support/orders.js';
import { failedIds, lambdaContext, redelivery, sqsEvent, sqsRecord } from '../support/sqs-events.js';
import { thrown } from '../support/thrown.js';

const secretArn = (name: string) => `arn:aws:secretsmanager:us-east-1:123456789012:secret:${name}`;
const SECRET = { owner: secretArn('owner'), worker: secretArn('worker'), payments: secretArn('payments'), cleanup: secretArn('cleanup'), relay: secretArn('relay') } as const;
/** The roles of this file's stack: the reference order worker (whose project migration grants it orders), a second consumer, the cleanup, an outbox relay. */
const ROLE = { worker: 'order_worker', payments: 'payment_worker', cleanup: 'inbox_cleanup', relay: 'outbox_relay' } as const;
const rolesJson = (roles: Record<string, { secretArn: string; access: string }>) => JSON.stringify(roles);
const DATABASE_ROLES = rolesJson({
  [ROLE.worker]: { secretArn: SECRET.worker, access: 'consumer' },
  [ROLE.payments]: { secretArn: SECRET.payments, access: 'consumer' },
  [ROLE.cleanup]: { secretArn: SECRET.cleanup, access: 'cleanup' },
  [ROLE.relay]: { secretArn: SECRET.relay, access: 'relay' },
});
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
  return migrationsEvent(requestType, {
    MigrationsHash: migrationsHash(REFERENCE_MIGRATIONS_DIR), ClusterArn: LOCAL_DATA_API_TARGET.resourceArn,
    DatabaseName: database, Roles: process.env.DATABASE_ROLES,
  }, { physicalResourceId: `inbox-migrations:${database}` });
}

/** Runs the migrate function with DATABASE_ROLES set to `roles` for that run. */
async function deployWithRoles(roles: string): Promise<MigrationsResourceResponse> {
  process.env.DATABASE_ROLES = roles;
  try {
    return await migrateHandler(deployEvent('Update'), lambdaContext(300_000));
  } finally {
    process.env.DATABASE_ROLES = DATABASE_ROLES;
  }
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
  secrets[SECRET.worker] = { username: ROLE.worker, password: newPassword() };
  secrets[SECRET.payments] = { username: ROLE.payments, password: newPassword() };
  secrets[SECRET.cleanup] = { username: ROLE.cleanup, password: newPassword() };
  secrets[SECRET.relay] = { username: ROLE.relay, password: newPassword() };
  api = await startDataApi({ databaseUrl: target.url, secrets });
  client = localDataApiClient(api.endpoint);
  // The migrate function's environment in AWS, pointed at the emulator.
  Object.assign(process.env, {
    CLUSTER_ARN: LOCAL_DATA_API_TARGET.resourceArn,
    SECRET_ARN: SECRET.owner,
    DATABASE_NAME: database,
    DATABASE_ROLES,
    AWS_ENDPOINT_URL_RDS_DATA: api.endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    KIT_MIGRATIONS_DIR,
    MIGRATIONS_DIR: REFERENCE_MIGRATIONS_DIR,
  });
  created = await migrateHandler(deployEvent('Create'), lambdaContext(300_000));
});

afterAll(async () => {
  client?.destroy();
  await api?.close();
  await target?.close();
});

/** The logins of the server among `names`: whether each may sign in, what it is a member of, and its comment. */
async function logins(names: readonly string[]) {
  return (await admin((connection) => connection.query<{ rolname: string; rolcanlogin: boolean; member_of: string[]; comment: string | null }>(
    `SELECT r.rolname, r.rolcanlogin, shobj_description(r.oid, 'pg_authid') AS comment,
       ARRAY(SELECT g.rolname FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid WHERE m.member = r.oid ORDER BY 1)::text[] AS member_of
     FROM pg_roles r WHERE r.rolname = ANY($1) ORDER BY r.rolname`, [names]))).rows;
}

/** Whether `role` may do `privilege` (SELECT, INSERT, UPDATE, DELETE) to all of `table`, or with `anyColumn` to some column of it. */
async function may(role: string, table: string, privilege: string, anyColumn = false): Promise<boolean> {
  const check = anyColumn ? 'has_any_column_privilege' : 'has_table_privilege';
  return (await admin((connection) => connection.query<{ may: boolean }>(`SELECT ${check}($1, $2, $3) AS may`, [role, table, privilege]))).rows[0]!.may;
}

describe('the migrate function makes a role for each consumer and the cleanup, with its twin, from its environment', () => {
  it('applies the kit\'s migrations and the project\'s, then sets the roles, reporting their names and never a password', async () => {
    const again = await migrateHandler(deployEvent('Update'), lambdaContext(300_000));

    expect(created.Data).toMatchObject({
      Applied: 'sqs-inbox/0001_consumed_message.sql,sqs-inbox/0002_role_password.sql,sqs-inbox/0003_outbox_message.sql,sqs-inbox/0004_kept_message.sql,sqs-inbox/0005_outbox_trace_parent.sql,sqs-inbox/0006_operator_audit.sql,sqs-inbox/0007_kit_run.sql,0002_orders.sql,0005_order_worker_grants.sql,0007_shipment_notices.sql',
      AlreadyApplied: '', Roles: 'order_worker,payment_worker,inbox_cleanup,outbox_relay',
    });
    expect(again.Data).toMatchObject({ Applied: '', Roles: 'order_worker,payment_worker,inbox_cleanup,outbox_relay' });
    for (const response of [created, again]) {
      for (const secret of [SECRET.worker, SECRET.payments, SECRET.cleanup, SECRET.relay]) expect(JSON.stringify(response)).not.toContain(secrets[secret]!.password);
    }
  });

  it('makes each role a login, and its twin a member of it that may not sign in until a rotation gives it a password, both marked as the kit\'s', async () => {
    const roles = Object.values(ROLE);
    expect(await logins([...roles, ...roles.map((role) => `${role}_clone`)])).toEqual([
      { rolname: 'inbox_cleanup', rolcanlogin: true, member_of: [], comment: KIT_ROLE_COMMENT },
      { rolname: 'inbox_cleanup_clone', rolcanlogin: false, member_of: ['inbox_cleanup'], comment: KIT_ROLE_COMMENT },
      { rolname: 'order_worker', rolcanlogin: true, member_of: [], comment: KIT_ROLE_COMMENT },
      { rolname: 'order_worker_clone', rolcanlogin: false, member_of: ['order_worker'], comment: KIT_ROLE_COMMENT },
      { rolname: 'outbox_relay', rolcanlogin: true, member_of: [], comment: KIT_ROLE_COMMENT },
      { rolname: 'outbox_relay_clone', rolcanlogin: false, member_of: ['outbox_relay'], comment: KIT_ROLE_COMMENT },
      { rolname: 'payment_worker', rolcanlogin: true, member_of: [], comment: KIT_ROLE_COMMENT },
      { rolname: 'payment_worker_clone', rolcanlogin: false, member_of: ['payment_worker'], comment: KIT_ROLE_COMMENT },
    ]);
  });

  it('grants each consumer SELECT and INSERT on the kit\'s table and nothing more of it; the project\'s migrations grant its own tables', async () => {
    for (const role of [ROLE.worker, ROLE.payments]) {
      expect(await Promise.all(['SELECT', 'INSERT', 'UPDATE', 'DELETE'].map((p) => may(role, 'consumed_message', p)))).toEqual([true, true, false, false]);
    }
    expect(await Promise.all(['SELECT', 'UPDATE'].map((p) => may(ROLE.worker, 'orders', p, true)))).toEqual([true, true]);
    expect(await Promise.all(['SELECT', 'UPDATE'].map((p) => may(ROLE.payments, 'orders', p, true)))).toEqual([false, false]);
    expect(await Promise.all(['SELECT', 'INSERT', 'DELETE'].map((p) => may(ROLE.cleanup, 'consumed_message', p)))).toEqual([false, false, true]);
    expect(await Promise.all(['SELECT', 'INSERT', 'DELETE'].map((p) => may(ROLE.relay, 'consumed_message', p)))).toEqual([false, false, false]);
  });

  it('lets a consumer only add kept messages, and the cleanup only delete them', async () => {
    expect(await Promise.all(['SELECT', 'INSERT', 'UPDATE', 'DELETE'].map((p) => may(ROLE.worker, 'kept_message', p)))).toEqual([false, true, false, false]);
    expect(await Promise.all(['SELECT', 'INSERT', 'DELETE'].map((p) => may(ROLE.cleanup, 'kept_message', p)))).toEqual([false, false, true]);
    expect(await Promise.all(['SELECT', 'INSERT', 'DELETE'].map((p) => may(ROLE.relay, 'kept_message', p)))).toEqual([false, false, false]);
  });

  it('stores each password as the SCRAM-SHA-256 verifier of the secret\'s password, which the Data API needs', async () => {
    const stored = await admin((connection) => connection.query<{ rolname: string; rolpassword: string }>(
      'SELECT rolname, rolpassword FROM pg_authid WHERE rolname = ANY($1)', [Object.values(ROLE)]));
    expect(stored.rows).toHaveLength(4);
    const secretOf: Record<string, string> = { [ROLE.worker]: SECRET.worker, [ROLE.payments]: SECRET.payments, [ROLE.cleanup]: SECRET.cleanup, [ROLE.relay]: SECRET.relay };
    for (const { rolname, rolpassword } of stored.rows) {
      const [, iterations, salt] = /^SCRAM-SHA-256\$(\d+):([^$]+)\$/.exec(rolpassword) ?? [];
      expect(rolpassword).toBe(scramVerifier(secrets[secretOf[rolname]!]!.password, { salt: Buffer.from(salt!, 'base64'), iterations: Number(iterations) }));
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

  it('makes the role of a consumer added later, and only it', async () => {
    const arn = secretArn('late');
    secrets[arn] = { username: 'late_worker', password: newPassword() };
    const response = await deployWithRoles(rolesJson({ ...JSON.parse(DATABASE_ROLES) as Record<string, { secretArn: string; access: string }>, late_worker: { secretArn: arn, access: 'consumer' } }));

    expect(response.Data).toMatchObject({ Applied: '', Roles: 'order_worker,payment_worker,inbox_cleanup,outbox_relay,late_worker' });
    expect((await logins(['late_worker', 'late_worker_clone'])).map((r) => [r.rolname, r.rolcanlogin])).toEqual([['late_worker', true], ['late_worker_clone', false]]);
    expect((await execute(arn, 'SELECT count(*) AS n FROM consumed_message')).records).toHaveLength(1);
  });
});

describe('the migrate function refuses a role that is not the kit\'s to manage, and changes nothing', () => {
  it('refuses a role of that name that the kit did not make (an application\'s), and leaves it as it was', async () => {
    await admin((connection) => connection.query("CREATE ROLE app_reporting LOGIN PASSWORD 'theirs'"));
    const arn = secretArn('reporting');
    secrets[arn] = { username: 'app_reporting', password: newPassword() };

    const error = await thrown(deployWithRoles(rolesJson({ app_reporting: { secretArn: arn, access: 'consumer' } })));

    expect(error).toBeInstanceOf(DatabaseRoleError);
    expect(error.message).toMatch(/Role app_reporting exists but sqs-inbox did not make it .*give the consumer another databaseRole/);
    expect(await logins(['app_reporting', 'app_reporting_clone'])).toEqual([{ rolname: 'app_reporting', rolcanlogin: true, member_of: [], comment: null }]);
    expect(await may('app_reporting', 'consumed_message', 'INSERT')).toBe(false);
  });

  it('refuses the owner the migrations sign in as, so no twin of it can ever inherit its rights', async () => {
    const owner = secrets[SECRET.owner]!.username;

    const error = await thrown(deployWithRoles(rolesJson({ [owner]: { secretArn: SECRET.owner, access: 'consumer' } })));

    expect(error).toBeInstanceOf(DatabaseRoleError);
    expect(error.message).toMatch(new RegExp(`Role ${owner} is privileged .* or the owner the migrations sign in as`));
    expect(await logins([`${owner}_clone`])).toEqual([]);
  });

  it('refuses a name that is no plain identifier before touching the database', async () => {
    api.resetStats();

    const error = await thrown(deployWithRoles('{"Orders\\"; DROP ROLE x; --":{"secretArn":"arn:1","access":"consumer"}}'));

    expect(error).toBeInstanceOf(DatabaseRoleError);
    expect(error.message).toMatch(/DATABASE_ROLES names the role .* lower-case letters, digits or _/);
    expect(api.stats().total).toBe(0);
  });

  it('refuses a role secret of another user (the owner\'s) before touching the database', async () => {
    api.resetStats();
    const error = await thrown(deployWithRoles(rolesJson({ [ROLE.worker]: { secretArn: SECRET.owner, access: 'consumer' } })));
    expect(error).toBeInstanceOf(RoleSecretError);
    expect(error.message).toMatch(/holds the username .* not order_worker or order_worker_clone: give the role its own secret/);
    if (secrets[SECRET.owner]!.password !== '') expect(error.message).not.toContain(secrets[SECRET.owner]!.password);
    expect(api.stats().total).toBe(0);
  });

  it('refuses a secret it cannot read, naming the secret and the permission it needs', async () => {
    await expect(deployWithRoles(rolesJson({ [ROLE.worker]: { secretArn: secretArn('missing'), access: 'consumer' } })))
      .rejects.toThrow(/secret:missing of role order_worker could not be read \(ResourceNotFoundException.*secretsmanager:GetSecretValue/);
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
    ['make a role', 'CREATE ROLE worker_probe'],
    ['create a table', 'CREATE TABLE worker_probe (id int)'],
  ])('cannot %s: DatabaseErrorException with SQLState 42501', async (_what, statement) => {
    await expectInsufficientPrivilege(execute(SECRET.worker, statement));
  });
});

describe('a second consumer, signed in with its own secret, has the kit\'s table and no other consumer\'s', () => {
  it('claims its messages, and a statement on the order worker\'s tables fails the message with a privilege error', async () => {
    const payments = signedIn(SECRET.payments);
    const outcomes: Outcome[] = [];
    const consumer = uniqueConsumer('payments-role');
    const [orderId] = await seedOrders(pool, 1);
    const claimOnly = sqsRecord({ orderId }, { key: `noted-${orderId}` });
    const touching = sqsRecord({ orderId }, { key: `touching-${orderId}` });

    const noted = await processBatch(sqsEvent(claimOnly), lambdaContext(), { consumer, db: payments, handle: async () => undefined, onOutcome: (o) => outcomes.push(o) });
    const refused = await processBatch(sqsEvent(touching), lambdaContext(), {
      consumer, db: payments, onOutcome: (o) => outcomes.push(o),
      statement: (m: { orderId: string }) => sql`UPDATE orders SET version = version + 1 WHERE order_id = ${sql.uuid(m.orderId)}`,
    });

    expect(failedIds(noted)).toEqual([]);
    expect(failedIds(refused)).toEqual([touching.messageId]);
    expect(outcomes.map((o) => o.kind)).toEqual(['processed', 'failed']);
    expect(String((outcomes[1]?.error as Error).message)).toMatch(/permission denied for table orders/);
    expect([...(await inboxRows(pool, consumer)).keys()]).toEqual([`noted-${orderId}`]);
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

  it('deletes the kept messages past their retention and keeps the others', async () => {
    const consumer = `cleanup-${randomUUID().slice(0, 8)}`;
    await pool.query(`INSERT INTO kept_message (consumer_name, message_key, kept_as, reason, source, body, body_encoding, body_bytes, kept_bytes, origin, kept_at)
      SELECT $1, 'k' || i, 'rejected', 'r', 'sqs', 'b', 'utf8', 1, 1, '{}', now() - make_interval(days => i * 50) FROM generate_series(0, 2) AS i`, [consumer]);

    const report = await cleanupKept(signedIn(SECRET.cleanup), { retentionMs: 90 * 86_400_000 });

    expect(report).toMatchObject({ deleted: 1, done: true });
    const { rows } = await pool.query('SELECT message_key FROM kept_message WHERE consumer_name = $1 ORDER BY message_key', [consumer]);
    expect(rows.map((row) => row.message_key)).toEqual(['k0', 'k1']);
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
    const error = await call(ROLE.worker, plain);
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

describe('the outbox under the kit\'s roles: a consumer\'s, the relay\'s and the cleanup\'s grants', () => {
  /** A publisher that takes everything at the first try, or leaves everything (`retry`), as `taking` says. */
  const publisher = (taking: { now: boolean }): Publisher => ({
    fifo: true, maxBatchEntries: 10,
    publish: async (entries) => entries.map(() => (taking.now ? { kind: 'sent' } : { kind: 'retry', reason: 'not yet' })),
  });
  const rowsOf = async (consumer: string) => (await pool.query<{ dispatched_at: Date | null }>(
    'SELECT dispatched_at FROM outbox_message WHERE consumer_name = $1', [consumer])).rows;

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

    const relayed = await relayOutbox(signedIn(SECRET.relay), { shipped: publisher(taking) }, { consumer });
    expect(relayed).toMatchObject({ sent: 2, failed: 0, undispatched: 0 });
    await pool.query(`UPDATE outbox_message SET dispatched_at = now() - interval '30 days' WHERE consumer_name = $1`, [consumer]);
    const cleaned = await cleanupOutbox(signedIn(SECRET.cleanup), { retentionMs: 7 * 86_400_000 });

    expect(cleaned.deleted).toBeGreaterThanOrEqual(2);
    expect(await rowsOf(consumer)).toEqual([]);
  });

  it.each([
    ['the worker', SECRET.worker, 'DELETE FROM outbox_message'],
    ['the worker', SECRET.worker, "UPDATE outbox_message SET claimed_by = 'someone else'"],
    ['the relay', SECRET.relay, "INSERT INTO outbox_message (id, consumer_name, message_key, target, body, size_bytes) VALUES (gen_random_uuid(), 'c', 'k', 't', 'b', 1)"],
    ['the relay', SECRET.relay, 'DELETE FROM outbox_message'],
    ['the relay', SECRET.relay, 'SELECT * FROM consumed_message'],
    ['the cleanup', SECRET.cleanup, 'SELECT body FROM outbox_message'],
    ['the cleanup', SECRET.cleanup, "UPDATE outbox_message SET failed_at = now()"],
  ])('%s cannot run %s: SQLState 42501', async (_who, secret, statement) => {
    await expectInsufficientPrivilege(execute(secret, statement));
  });
});
