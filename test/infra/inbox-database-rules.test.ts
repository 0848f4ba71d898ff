import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as events from 'aws-cdk-lib/aws-events';
import * as rds from 'aws-cdk-lib/aws-rds';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scheduleExpressionProblem } from '../../lib/cleanup/schedule-expression.js';
import { InboxDatabase } from '../../lib/database/inbox-database.js';
import { roleNameFor } from '../../lib/database/role-name.js';
import { InfraConfigError } from '../../lib/infra-config-error.js';
import { InboxConsumer } from '../../lib/sqs/inbox-consumer.js';
import { WORKER_ENTRY } from './consumer-fixture.js';
import { bareStack, buildOnImported, importedCluster } from './database-fixture.js';

/**
 * Expects `build` to be refused with `message`. Called once: a refused construct is already in its
 * scope, so a second call on the same stack would fail on its id instead.
 */
function expectRefused(build: () => unknown, message: RegExp): void {
  expect(build).toThrow(message);
}

/** A cluster of this app with `props`, in a VPC of its own. */
function clusterOf(props: Partial<rds.DatabaseClusterProps>) {
  const stack = bareStack();
  const vpc = new ec2.Vpc(stack, 'Vpc', { natGateways: 0, subnetConfiguration: [{ name: 'db', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }] });
  const cluster = new rds.DatabaseCluster(stack, 'Db', {
    engine: rds.DatabaseClusterEngine.auroraPostgres({ version: rds.AuroraPostgresEngineVersion.VER_17_9 }),
    writer: rds.ClusterInstance.serverlessV2('writer'), vpc, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED }, ...props,
  });
  return { stack, cluster };
}

describe('InboxDatabase refuses a cluster it cannot work with', () => {
  it('refuses with InfraConfigError, naming the construct', () => {
    expect(buildOnImported({ cleanupBatchSize: 0 })).toThrow(InfraConfigError);
    expect(buildOnImported({ cleanupBatchSize: 0 })).toThrow(/^InboxDatabase DatabaseTest\/Inbox: /);
  });

  it('refuses the settings of a cluster it would make beside a cluster given, naming each', () => {
    expectRefused(buildOnImported({ minCapacity: 0.5, removalPolicy: RemovalPolicy.RETAIN }),
      /minCapacity, removalPolicy shape the cluster InboxDatabase makes, but a cluster was given: set them on your cluster instead/);
  });

  it('refuses a cluster of another engine, quoting it', () => {
    const { stack, cluster } = clusterOf({ engine: rds.DatabaseClusterEngine.auroraMysql({ version: rds.AuroraMysqlEngineVersion.VER_3_08_0 }) });
    expectRefused(() => new InboxDatabase(stack, 'Inbox', { cluster, databaseName: 'inbox' }), /the cluster's engine is "aurora-mysql"/);
  });

  it('refuses an Aurora PostgreSQL version without the Data API, given or to be made, and takes the first one with it', () => {
    const { stack, cluster } = clusterOf({ engine: rds.DatabaseClusterEngine.auroraPostgres({ version: rds.AuroraPostgresEngineVersion.VER_16_0 }) });
    expectRefused(() => new InboxDatabase(stack, 'Inbox', { cluster, databaseName: 'inbox' }),
      /Aurora PostgreSQL 16\.0 has no Data API .* use 13\.11, 14\.8, 15\.3, 16\.1, 17\.4 or a later minor/);
    expectRefused(() => new InboxDatabase(bareStack(), 'Inbox', { engineVersion: rds.AuroraPostgresEngineVersion.VER_15_2, minCapacity: 0.5 }), /15\.2 has no Data API/);
    expect(() => new InboxDatabase(bareStack(), 'Inbox', { engineVersion: rds.AuroraPostgresEngineVersion.VER_16_1, minCapacity: 0.5 })).not.toThrow();
  });

  it('refuses to let a version without auto-pause scale to 0, and takes it from 0.5 ACU', () => {
    expectRefused(() => new InboxDatabase(bareStack(), 'Inbox', { engineVersion: rds.AuroraPostgresEngineVersion.VER_16_1 }),
      /minCapacity 0 lets the cluster pause, which Aurora PostgreSQL 16\.1 cannot: use 13\.15, 14\.12, 15\.7, 16\.3, 17\.4 or later/);
  });

  it('refuses a cluster that turned the Data API off', () => {
    const { stack, cluster } = clusterOf({ enableDataApi: false });
    expectRefused(() => new InboxDatabase(stack, 'Inbox', { cluster, databaseName: 'inbox' }), /enableDataApi: false.*set enableDataApi: true/);
  });

  it('asks an imported cluster for its database name and its owner\'s secret', () => {
    const stack = bareStack();
    const { cluster, ownerSecret } = importedCluster(stack);
    expectRefused(() => new InboxDatabase(stack, 'Inbox', { cluster, ownerSecret }), /default database cannot be read .* give databaseName/);
    expectRefused(() => new InboxDatabase(stack, 'NoSecret', { cluster, databaseName: 'inbox' }), /no secret the construct can see .* as ownerSecret/);
  });

  it.each([
    [{ minCapacity: 0.3 }, /minCapacity must be ACUs from 0 to 256 in steps of 0\.5 .* but 0\.3 was provided/],
    [{ maxCapacity: 0.5 }, /maxCapacity must be ACUs from 1 to 256 in steps of 0\.5, but 0\.5 was provided/],
    [{ minCapacity: 4, maxCapacity: 2 }, /maxCapacity must be at least minCapacity \(4\), but 2 was provided/],
    [{ autoPause: Duration.minutes(2) }, /autoPause must be from 5 minutes to 24 hours .* but 120 s was provided/],
    [{ clusterMaxCapacity: 300 }, /clusterMaxCapacity must be ACUs from 0\.5 to 256 .* but 300 was provided/],
    [{ databaseName: 'my-db' }, /databaseName must be a letter, then letters, digits or _ .* but "my-db" was provided/],
  ])('refuses %j for the cluster it makes, quoting it', (props, message) => {
    expectRefused(() => new InboxDatabase(bareStack(), 'Inbox', props), message);
  });
});

describe('InboxDatabase refuses a cleanup that cannot keep its promise', () => {
  it.each([
    [{ cleanupBatchSize: 0 }, /cleanupBatchSize must be a whole number of rows from 1 to 10000, but 0 was provided/],
    [{ cleanupBatchSize: 10_001 }, /cleanupBatchSize must be a whole number of rows from 1 to 10000, but 10001 was provided/],
    [{ cleanupRetention: Duration.hours(12) }, /cleanupRetention must be at least a day .* but 12 hours was provided/],
    [{ outboxRetention: Duration.seconds(30) }, /outboxRetention must be at least a minute .* but 30 s was provided/],
    [{ keptRetention: Duration.seconds(30) }, /keptRetention must be at least a minute .* but 30 s was provided/],
    [{ cleanupRole: 'Cleanup' }, /cleanupRole must be a role the kit can make: a database role is 1 to 57 lower-case letters.*but "Cleanup" was provided/],
    [{ cleanupRole: 'pg_cleanup' }, /names starting with pg_ belong to PostgreSQL, but "pg_cleanup" was provided/],
  ])('refuses %j, quoting it', (props, message) => {
    expectRefused(buildOnImported(props), message);
  });

  it('takes the largest batch the cleanup runtime takes', () => {
    expect(buildOnImported({ cleanupBatchSize: 10_000 })).not.toThrow();
  });

  it.each([
    ['rate(1 hours)', /the unit must be singular when the value is 1/],
    ['rate(5 hour)', /the unit must be plural when the value is over 1/],
    ['rate(0 minutes)', /a positive whole number/],
    ['rate(1.5 hours)', /a positive whole number/],
    ['rate(2 weeks)', /minute, minutes, hour, hours, day or days/],
    ['cron(17 3 * * *)', /six fields.*but 5 were given/],
    ['cron(17 3 * * * *)', /one of day-of-month and day-of-week must be \?/],
    ['cron(17 3 ? * ? *)', /one of day-of-month and day-of-week must be \?/],
    ['cron(60 3 * * ? *)', /minutes field "60"/],
    ['cron(0 24 * * ? *)', /hours field "24"/],
    ['cron(0 3 32 * ? *)', /day-of-month field "32"/],
    ['cron(0 3 * 13 ? *)', /month field "13"/],
    ['cron(0 3 ? * 8 *)', /day-of-week field "8"/],
    ['cron(0 3 ? * 3#1,6#3 *)', /one # expression/],
    ['cron(0 3 * * ? 1969)', /year field "1969"/],
    ['cron(0 3 1 * 2 *)', /one of day-of-month and day-of-week must be \?/],
    ['cron(0 3 L * ? *) extra', /it is neither rate\(value unit\) nor cron/],
    ['daily', /it is neither rate\(value unit\) nor cron/],
  ])('refuses the cleanup schedule %s as EventBridge would, saying why', (expression, why) => {
    const build = buildOnImported({ cleanupSchedule: events.Schedule.expression(expression) });
    const quoted = JSON.stringify(expression).replace(/[()*?+.#]/g, '\\$&');
    expectRefused(build, new RegExp(`cleanupSchedule must be an EventBridge schedule that runs at least once a day .* but ${quoted} was provided`));
    expectRefused(build, why);
  });

  it.each([
    'rate(1 minute)', 'rate(5 minutes)', 'rate(1 hour)', 'rate(12 hours)', 'rate(24 hours)', 'rate(1 day)', 'rate(1440 minutes)',
    'cron(17 3 * * ? *)', 'cron(0/15 * * * ? *)', 'cron(5,35 8-17/2 * * ? *)', 'cron(0 3 ? * * *)',
  ])('takes the cleanup schedule %s, at least daily', (expression) => {
    expect(buildOnImported({ cleanupSchedule: events.Schedule.expression(expression) })).not.toThrow();
  });

  it.each([
    ['rate(7 days)', /it runs every 7 days, less often than daily/],
    ['rate(25 hours)', /less often than daily/],
    ['cron(0 12 ? * MON-FRI *)', /it runs only on the days its day-of-week field names/],
    ['cron(0 8 1 * ? *)', /its day-of-month field names/],
    ['cron(0 0 1 JAN,JUL ? 2030-2035)', /its day-of-month and month and year fields name/],
  ])('refuses the cleanup schedule %s, valid but not daily: the not-running alarm looks for a run each day', (expression, why) => {
    expectRefused(buildOnImported({ cleanupSchedule: events.Schedule.expression(expression) }), why);
  });

  it.each([
    'rate(7 days)', 'cron(0 12 ? * MON-FRI *)', 'cron(0 8 1 * ? *)', 'cron(0 18 ? * 6L *)', 'cron(0 10 ? * 2#1 *)', 'cron(0 9 L * ? *)',
    'cron(0 9 15W * ? *)', 'cron(0 0 1 JAN,JUL ? 2030-2035)', 'cron(5,35 8-17/2 ? * SUN,SAT *)',
  ])('knows %s for an expression EventBridge takes', (expression) => {
    expect(scheduleExpressionProblem(expression)).toBeUndefined();
  });
});

describe('InboxDatabase refuses a project migrations folder the migrate function would refuse', () => {
  const folders: string[] = [];
  afterAll(() => { for (const dir of folders) rmSync(dir, { recursive: true, force: true }); });
  const folderWith = (files: Record<string, string>): string => {
    const dir = mkdtempSync(path.join(tmpdir(), 'project-migrations-'));
    folders.push(dir);
    for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
    return dir;
  };

  it.each([
    [{ '1_orders.sql': 'CREATE TABLE orders (id int);' }, /1_orders\.sql is not named like a migration: rename it NNNN_name\.sql/],
    [{ '0001_a.sql': 'SELECT 1;', '0001_b.sql': 'SELECT 2;' }, /0001_a\.sql and 0001_b\.sql .* share the number 0001/],
  ])('refuses %j, naming the file', (files, message) => {
    expectRefused(buildOnImported({ migrations: folderWith(files) }), message);
  });

  it('refuses a folder that is not there', () => {
    expectRefused(buildOnImported({ migrations: path.join(tmpdir(), 'no-such-migrations-folder') }), /no-such-migrations-folder" is not a folder/);
  });
});

describe('a consumer\'s database role', () => {
  it('defaults to its construct id in snake case, cut to what a twin leaves room for', () => {
    expect(roleNameFor('OrderWorker')).toBe('order_worker');
    expect(roleNameFor('ship-orders')).toBe('ship_orders');
    expect(roleNameFor('HTTPIngest2')).toBe('http_ingest2');
    expect(roleNameFor('3rdParty')).toBe('role_3rd_party');
    expect(roleNameFor('A'.repeat(80))).toHaveLength(57);
  });

  const consumerOn = (database: InboxDatabase, id: string, extra: object = {}) =>
    new InboxConsumer(Stack.of(database), id, { database, entry: WORKER_ENTRY, ...extra });

  it('refuses a name the kit cannot make, quoting it', () => {
    const database = buildOnImported()();
    expectRefused(() => consumerOn(database, 'Orders', { databaseRole: 'Orders' }), /cannot give DatabaseTest\/Orders the database role "Orders": a database role is 1 to 57/);
    expectRefused(() => consumerOn(database, 'Twin', { databaseRole: 'orders_clone' }), /"orders_clone": a role ending in _clone is taken for a twin/);
    expectRefused(() => consumerOn(database, 'Rds', { databaseRole: 'rdsadmin' }), /names starting with rds belong to Aurora/);
  });

  it('refuses a name another consumer of the cluster has, in this database or another on the cluster', () => {
    const stack = bareStack();
    const imported = importedCluster(stack);
    const orders = new InboxDatabase(stack, 'Orders', { ...imported, databaseName: 'orders' });
    const billing = new InboxDatabase(stack, 'Billing', { ...imported, databaseName: 'billing', cleanupRole: 'billing_cleanup', operatorRole: 'billing_operator' });
    new InboxConsumer(stack, 'Worker', { database: orders, entry: WORKER_ENTRY });
    expectRefused(() => new InboxConsumer(stack, 'Other', { database: orders, entry: WORKER_ENTRY, databaseRole: 'worker' }),
      /The database role "worker" of DatabaseTest\/Other is already DatabaseTest\/Worker's on this cluster/);
    expectRefused(() => new InboxConsumer(stack, 'Again', { database: billing, entry: WORKER_ENTRY, databaseRole: 'worker' }), /already DatabaseTest\/Worker's/);
    expectRefused(() => new InboxConsumer(stack, 'Cleaner', { database: billing, entry: WORKER_ENTRY, databaseRole: 'inbox_cleanup' }),
      /"inbox_cleanup" of DatabaseTest\/Cleaner is already DatabaseTest\/Orders \(its cleanup\)'s/);
    expectRefused(() => new InboxDatabase(stack, 'Third', { ...imported, databaseName: 'third' }), /"inbox_cleanup" of DatabaseTest\/Third \(its cleanup\) is already/);
  });

  it('refuses a consumer that needs its rows longer than the cleanup keeps them', () => {
    const database = buildOnImported({ cleanupRetention: Duration.days(20) })();
    expectRefused(() => consumerOn(database, 'Orders'), /deletes every consumer's inbox rows after 20 days, but DatabaseTest\/Orders needs them 25 days: keep them at least 25 days \(raise cleanupRetention/);
    expect(() => consumerOn(database, 'Short', { inboxRetention: Duration.days(20), queueProps: { retentionPeriod: Duration.days(1) } })).not.toThrow();
  });
});

describe('a consumer given a database', () => {
  it('refuses a cluster, database name or secret beside it', () => {
    const database = buildOnImported()();
    const stack = Stack.of(database);
    expectRefused(() => new InboxConsumer(stack, 'Orders', { database, cluster: database.cluster, databaseName: 'inbox', entry: WORKER_ENTRY }),
      /database gives the consumer its cluster, database and secret, but cluster, databaseName was given too/);
  });

  it('refuses a databaseRole without a database, and no database at all', () => {
    const stack = bareStack();
    const { cluster } = importedCluster(stack);
    expectRefused(() => new InboxConsumer(stack, 'Orders', { cluster, databaseName: 'inbox', entry: WORKER_ENTRY, databaseRole: 'orders' }),
      /databaseRole names the consumer's role in its database, but no database was given \(databaseRole "orders"\)/);
    expectRefused(() => new InboxConsumer(stack, 'Nothing', { entry: WORKER_ENTRY }), /The consumer needs a database: give database \(an InboxDatabase\), or cluster and databaseName, but no cluster was given/);
  });
});
