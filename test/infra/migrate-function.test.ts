import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { handler } from '../../functions/migrate/index.js';
import { onMigrationsEvent } from '../../functions/migrate/on-event.js';
import { isResuming, untilResumed } from '../../functions/inbox/data-api/index.js';
import { inboxMigrations, migrationsHashOf, readMigrations } from '../../functions/inbox/migrations/index.js';
import { KIT_MIGRATIONS_DIR, migrationsHash } from '../../lib/database/migration-folders.js';
import { LOCAL_DATA_API_TARGET, startDataApi, type RunningDataApi } from '../../local/data-api/index.js';
import { REFERENCE_MIGRATIONS_DIR } from '../../demo/reference-database.js';
import { databaseUrl } from '../../local/scratch-database.js';
import { migrationsEvent, type MigrationsProperties } from '../support/migrations-event.js';
import { lambdaContext } from '../support/sqs-events.js';

const SOME_PROPERTIES: MigrationsProperties = {
  MigrationsHash: 'abc', ClusterArn: 'arn:aws:rds:us-east-1:123456789012:cluster:a', DatabaseName: 'inbox',
  Roles: '{"orders":{"secretArn":"arn:aws:secretsmanager:us-east-1:123456789012:secret:orders","access":"consumer"}}',
};

/** A CloudFormation event as the Provider framework hands it to onEvent. */
const cfnEvent = (
  requestType: 'Create' | 'Update' | 'Delete',
  options: { physicalResourceId?: string; properties?: MigrationsProperties; oldProperties?: MigrationsProperties } = {},
) => migrationsEvent(requestType, options.properties ?? SOME_PROPERTIES, options);

/** What the function bundles, as `onMigrationsEvent` is told of it. */
const bundledAs = (properties: MigrationsProperties) => async () => ({
  hash: properties.MigrationsHash, clusterArn: properties.ClusterArn, databaseName: properties.DatabaseName, roles: properties.Roles,
});

const resuming = () => Object.assign(new Error('Database is resuming'), { name: 'DatabaseResumingException' });

describe('the custom resource answer', () => {
  const applied = async () => ({ applied: ['0001_a.sql', '0002_b.sql'], alreadyApplied: [] });
  const bundled = bundledAs(SOME_PROPERTIES);

  it('applies on Create and reports what it applied under a stable id', async () => {
    const response = await onMigrationsEvent(cfnEvent('Create'), { bundled, apply: applied }, 'inbox-migrations:inbox');
    expect(response).toEqual({ PhysicalResourceId: 'inbox-migrations:inbox', Data: { Applied: '0001_a.sql,0002_b.sql', AlreadyApplied: '' } });
  });

  it('applies on Update, keeping the id so CloudFormation never deletes the old resource', async () => {
    const response = await onMigrationsEvent(cfnEvent('Update', { physicalResourceId: 'inbox-migrations:inbox' }),
      { bundled, apply: async () => ({ applied: [], alreadyApplied: ['0001_a.sql'] }) }, 'inbox-migrations:inbox');
    expect(response.PhysicalResourceId).toBe('inbox-migrations:inbox');
    expect(response.Data).toEqual({ Applied: '', AlreadyApplied: '0001_a.sql' });
  });

  it.each([
    ['MigrationsHash', { ...SOME_PROPERTIES, MigrationsHash: 'older' }],
    ['ClusterArn', { ...SOME_PROPERTIES, ClusterArn: 'arn:aws:rds:us-east-1:123456789012:cluster:other' }],
    ['DatabaseName', { ...SOME_PROPERTIES, DatabaseName: 'other' }],
    ['Roles', { ...SOME_PROPERTIES, Roles: '{}' }],
  ])('does nothing on an Update whose %s is not what the function was deployed with', async (property, properties) => {
    let ran = false;
    const response = await onMigrationsEvent(cfnEvent('Update', { physicalResourceId: 'inbox-migrations:inbox', properties }), {
      bundled,
      apply: async () => { ran = true; return applied(); },
    }, 'inbox-migrations:inbox');
    expect(ran).toBe(false);
    expect(response.PhysicalResourceId).toBe('inbox-migrations:inbox');
    expect(response.Data).toMatchObject({ Applied: '', AlreadyApplied: '' });
    expect(response.Data?.Skipped).toContain(property);
  });

  it('leaves the database alone on Delete', async () => {
    let ran = false;
    const response = await onMigrationsEvent(cfnEvent('Delete', { physicalResourceId: 'inbox-migrations:inbox' }), {
      bundled,
      apply: async () => { ran = true; return applied(); },
    }, 'inbox-migrations:inbox');
    expect(ran).toBe(false);
    expect(response).toEqual({ PhysicalResourceId: 'inbox-migrations:inbox' });
  });

  it('throws what the run threw, so the framework fails the deploy with it', async () => {
    await expect(onMigrationsEvent(cfnEvent('Create'), { bundled, apply: async () => { throw new Error('Migration 0002_b.sql failed'); } }, 'id'))
      .rejects.toThrow('Migration 0002_b.sql failed');
  });
});

describe('the migrations hash', () => {
  it('is the same at synth (lib, from the folders) and at run time (the function, from the files it read): the kit\'s and the project\'s', async () => {
    expect(migrationsHashOf([...await inboxMigrations(), ...await readMigrations(REFERENCE_MIGRATIONS_DIR)])).toBe(migrationsHash(REFERENCE_MIGRATIONS_DIR));
    expect(migrationsHashOf(await inboxMigrations())).toBe(migrationsHash());
    expect(migrationsHash(REFERENCE_MIGRATIONS_DIR)).not.toBe(migrationsHash());
  });

  it('changes with a name or a text', () => {
    const base = migrationsHashOf([{ name: '0001_a.sql', sql: 'CREATE TABLE a (id int);' }]);
    expect(migrationsHashOf([{ name: '0001_b.sql', sql: 'CREATE TABLE a (id int);' }])).not.toBe(base);
    expect(migrationsHashOf([{ name: '0001_a.sql', sql: 'CREATE TABLE a (id bigint);' }])).not.toBe(base);
  });
});

describe('waiting out a resume', () => {
  it('knows the resume error by name, on the error or in its causes', () => {
    expect(isResuming(resuming())).toBe(true);
    expect(isResuming(Object.assign(new Error('still resuming'), { name: 'DataApiResumingError' }))).toBe(true);
    expect(isResuming(new Error('wrapped', { cause: resuming() }))).toBe(true);
    expect(isResuming(new Error('syntax error'))).toBe(false);
  });

  it('retries while the database resumes, then returns', async () => {
    let calls = 0;
    const result = await untilResumed(async () => {
      calls += 1;
      if (calls < 3) throw resuming();
      return 'done';
    }, { remainingMs: () => 60_000, marginMs: 1_000, waitMs: 1 });
    expect(result).toBe('done');
    expect(calls).toBe(3);
  });

  it('throws any other error at once', async () => {
    let calls = 0;
    await expect(untilResumed(async () => {
      calls += 1;
      throw new Error('syntax error');
    }, { remainingMs: () => 60_000, marginMs: 1_000, waitMs: 1 })).rejects.toThrow('syntax error');
    expect(calls).toBe(1);
  });

  it('gives up when the invocation has no time left for another wait', async () => {
    let calls = 0;
    await expect(untilResumed(async () => {
      calls += 1;
      throw resuming();
    }, { remainingMs: () => 5_000, marginMs: 4_000, waitMs: 2_000 })).rejects.toThrow('Database is resuming');
    expect(calls).toBe(1);
  });
});

/** A project's migrations folder of this file's own: one table. */
const PROJECT_FILES: Record<string, string> = { '0001_widgets.sql': 'CREATE TABLE widgets (id int PRIMARY KEY);' };

describe('the migrate handler over the Data API (emulator, real PostgreSQL)', () => {
  const database = `migrate_test_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const replacement = `${database}_new`;
  const adminUrl = inject('pgAdminUrl');
  let api: RunningDataApi;
  const scratches: string[] = [];
  /** A folder of the project's migrations plus `extra` files. */
  const folderWith = (extra: Record<string, string>): string => {
    const dir = mkdtempSync(path.join(tmpdir(), 'migrations-'));
    scratches.push(dir);
    for (const [file, text] of Object.entries({ ...PROJECT_FILES, ...extra })) writeFileSync(path.join(dir, file), text);
    return dir;
  };
  const projectDir = folderWith({});
  /** Every migration a run applies, as it records them: the kit's first. */
  const APPLIED = ['sqs-inbox/0001_consumed_message.sql', 'sqs-inbox/0002_role_password.sql', 'sqs-inbox/0003_outbox_message.sql', 'sqs-inbox/0004_kept_message.sql', 'sqs-inbox/0005_outbox_trace_parent.sql', 'sqs-inbox/0006_operator_audit.sql', 'sqs-inbox/0007_kit_run.sql', ...Object.keys(PROJECT_FILES)];
  /** What the stack gives the custom resource for the function's environment and `dir`'s migrations. */
  const deployed = (dir = projectDir): MigrationsProperties => ({
    MigrationsHash: migrationsHash(dir), ClusterArn: process.env.CLUSTER_ARN!, DatabaseName: process.env.DATABASE_NAME!,
  });
  const event = (requestType: 'Create' | 'Update' | 'Delete', dir?: string) =>
    cfnEvent(requestType, { physicalResourceId: `inbox-migrations:${database}`, properties: deployed(dir) });

  const admin = async <T>(work: (client: pg.Client) => Promise<T>, url = adminUrl): Promise<T> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  const tableExists = async (table: string, db = database) =>
    (await admin((client) => client.query('SELECT to_regclass($1) AS t', [table]), databaseUrl(adminUrl, db))).rows[0].t !== null;

  beforeAll(async () => {
    await admin((client) => client.query(`CREATE DATABASE ${database}`));
    await admin((client) => client.query(`CREATE DATABASE ${replacement}`));
    api = await startDataApi({ databaseUrl: adminUrl });
    // What the function's environment holds in AWS, pointed at the emulator.
    Object.assign(process.env, {
      CLUSTER_ARN: LOCAL_DATA_API_TARGET.resourceArn,
      SECRET_ARN: LOCAL_DATA_API_TARGET.secretArn,
      DATABASE_NAME: database,
      AWS_ENDPOINT_URL_RDS_DATA: api.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      KIT_MIGRATIONS_DIR,
      MIGRATIONS_DIR: projectDir,
    });
  });

  afterAll(async () => {
    await api?.close();
    await admin((client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
    await admin((client) => client.query(`DROP DATABASE IF EXISTS ${replacement} WITH (FORCE)`));
    for (const dir of scratches) rmSync(dir, { recursive: true, force: true });
  });

  afterEach(() => {
    process.env.MIGRATIONS_DIR = projectDir;
  });

  it('applies the kit\'s migrations and then every one of the project\'s folder on Create', async () => {
    const response = await handler(event('Create'), lambdaContext(300_000));
    expect(response).toEqual({
      PhysicalResourceId: `inbox-migrations:${database}`,
      Data: { Applied: APPLIED.join(','), AlreadyApplied: '' },
    });
    const tables = await admin((client) => client.query<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'"), databaseUrl(adminUrl, database));
    expect(tables.rows.map((row) => row.name)).toEqual(expect.arrayContaining(['consumed_message', 'schema_migrations', 'widgets']));
  });

  it('applies nothing twice on the next deploy', async () => {
    const response = await handler(event('Update'), lambdaContext(300_000));
    expect(response.Data).toEqual({ Applied: '', AlreadyApplied: APPLIED.join(',') });
  });

  it('fails on a bad migration, naming its file, and applies none of the run', async () => {
    const dir = folderWith({
      '9001_good.sql': 'CREATE TABLE migrate_probe (id int);',
      '9002_broken.sql': 'CREATE TABLE migrate_probe_2 (id int);\nALTER TABLE no_such_table ADD COLUMN x int;',
    });
    process.env.MIGRATIONS_DIR = dir;
    await expect(handler(event('Update', dir), lambdaContext(300_000))).rejects.toThrow(/Migration 9002_broken\.sql failed at statement 2 of 2/);
    expect(await tableExists('migrate_probe')).toBe(false);
  });

  it('does nothing on a rollback: an Update for older migrations than the function bundles', async () => {
    // The function was deployed with one more migration; CloudFormation rolls the resource back to
    // the template before it, whose hash is that of the project's folder alone.
    const newer = folderWith({ '9003_rollback_probe.sql': 'CREATE TABLE rollback_probe (id int);' });
    process.env.MIGRATIONS_DIR = newer;
    api.resetStats();

    const response = await handler(cfnEvent('Update', {
      physicalResourceId: `inbox-migrations:${database}`, properties: deployed(projectDir), oldProperties: deployed(newer),
    }), lambdaContext(300_000));

    expect(response.PhysicalResourceId).toBe(`inbox-migrations:${database}`);
    expect(response.Data).toMatchObject({ Applied: '', AlreadyApplied: '', Skipped: expect.stringContaining('MigrationsHash') });
    expect(api.stats().total).toBe(0);
    expect(await tableExists('rollback_probe')).toBe(false);
  });

  it('applies every migration to a new cluster: an Update whose ClusterArn changed', async () => {
    const previous = deployed();
    Object.assign(process.env, { CLUSTER_ARN: 'arn:aws:rds:us-east-1:123456789012:cluster:replacement', DATABASE_NAME: replacement });
    try {
      const response = await handler(cfnEvent('Update', {
        physicalResourceId: `inbox-migrations:${database}`, properties: deployed(), oldProperties: previous,
      }), lambdaContext(300_000));
      expect(response.Data).toEqual({ Applied: APPLIED.join(','), AlreadyApplied: '' });
      expect(await tableExists('consumed_message', replacement)).toBe(true);
    } finally {
      Object.assign(process.env, { CLUSTER_ARN: previous.ClusterArn, DATABASE_NAME: previous.DatabaseName });
    }
  });

  it('waits for a paused database to resume', async () => {
    api.resetStats();
    api.pause(800);
    const response = await handler(event('Update'), lambdaContext(300_000));
    expect(response.Data?.AlreadyApplied).toBe(APPLIED.join(','));
    expect(api.stats().errors.DatabaseResumingException).toBeGreaterThan(0);
  });

  it('does not touch the database on Delete', async () => {
    api.resetStats();
    await handler(event('Delete'), lambdaContext(300_000));
    expect(api.stats().total).toBe(0);
  });
});
