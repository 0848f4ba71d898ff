import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { handler } from '../../functions/migrate/index.js';
import { onMigrationsEvent } from '../../functions/migrate/on-event.js';
import { isResuming, untilResumed } from '../../functions/inbox/data-api/index.js';
import { LOCAL_DATA_API_TARGET, startDataApi, type RunningDataApi } from '../../local/data-api/index.js';
import { databaseUrl } from '../../local/scratch-database.js';
import { lambdaContext } from '../support/sqs-events.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations', import.meta.url));
const REPO_MIGRATIONS = readdirSync(MIGRATIONS_DIR).filter((file) => file.endsWith('.sql')).sort();

/** A CloudFormation event as the Provider framework hands it to onEvent. */
function cfnEvent(requestType: 'Create' | 'Update' | 'Delete', physicalResourceId?: string): CloudFormationCustomResourceEvent {
  const common = {
    ServiceToken: 'arn:aws:lambda:us-east-1:123456789012:function:framework',
    ResponseURL: 'https://cloudformation-custom-resource-response.example/',
    StackId: 'arn:aws:cloudformation:us-east-1:123456789012:stack/SqsInbox-dev/1',
    RequestId: randomUUID(),
    LogicalResourceId: 'Migrations',
    ResourceType: 'Custom::InboxMigrations',
    ResourceProperties: { ServiceToken: 'token', MigrationsHash: 'abc' },
  };
  if (requestType === 'Create') return { ...common, RequestType: 'Create' };
  if (requestType === 'Update') {
    return { ...common, RequestType: 'Update', PhysicalResourceId: physicalResourceId!, OldResourceProperties: { ServiceToken: 'token', MigrationsHash: 'old' } };
  }
  return { ...common, RequestType: 'Delete', PhysicalResourceId: physicalResourceId! };
}

const resuming = () => Object.assign(new Error('Database is resuming'), { name: 'DatabaseResumingException' });

describe('the custom resource answer', () => {
  it('applies on Create and reports what it applied under a stable id', async () => {
    const response = await onMigrationsEvent(cfnEvent('Create'), async () => ({ applied: ['0001_a.sql', '0002_b.sql'], alreadyApplied: [] }), 'inbox-migrations:inbox');
    expect(response).toEqual({ PhysicalResourceId: 'inbox-migrations:inbox', Data: { Applied: '0001_a.sql,0002_b.sql', AlreadyApplied: '' } });
  });

  it('applies on Update, keeping the id so CloudFormation never deletes the old resource', async () => {
    const response = await onMigrationsEvent(cfnEvent('Update', 'inbox-migrations:inbox'), async () => ({ applied: [], alreadyApplied: ['0001_a.sql'] }), 'inbox-migrations:inbox');
    expect(response.PhysicalResourceId).toBe('inbox-migrations:inbox');
    expect(response.Data).toEqual({ Applied: '', AlreadyApplied: '0001_a.sql' });
  });

  it('leaves the database alone on Delete', async () => {
    let ran = false;
    const response = await onMigrationsEvent(cfnEvent('Delete', 'inbox-migrations:inbox'), async () => {
      ran = true;
      return { applied: [], alreadyApplied: [] };
    }, 'inbox-migrations:inbox');
    expect(ran).toBe(false);
    expect(response).toEqual({ PhysicalResourceId: 'inbox-migrations:inbox' });
  });

  it('throws what the run threw, so the framework fails the deploy with it', async () => {
    await expect(onMigrationsEvent(cfnEvent('Create'), async () => { throw new Error('Migration 0002_b.sql failed'); }, 'id'))
      .rejects.toThrow('Migration 0002_b.sql failed');
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

describe('the migrate handler over the Data API (emulator, real PostgreSQL)', () => {
  const database = `migrate_test_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const adminUrl = inject('pgAdminUrl');
  let api: RunningDataApi;
  let scratch: string;

  const admin = async <T>(work: (client: pg.Client) => Promise<T>, url = adminUrl): Promise<T> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    await admin((client) => client.query(`CREATE DATABASE ${database}`));
    api = await startDataApi({ databaseUrl: adminUrl });
    scratch = mkdtempSync(path.join(tmpdir(), 'migrations-'));
    // What the function's environment holds in AWS, pointed at the emulator.
    Object.assign(process.env, {
      CLUSTER_ARN: LOCAL_DATA_API_TARGET.resourceArn,
      SECRET_ARN: LOCAL_DATA_API_TARGET.secretArn,
      DATABASE_NAME: database,
      AWS_ENDPOINT_URL_RDS_DATA: api.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      MIGRATIONS_DIR,
    });
  });

  afterAll(async () => {
    await api?.close();
    await admin((client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
    rmSync(scratch, { recursive: true, force: true });
  });

  it('applies every migration of the folder on Create', async () => {
    const response = await handler(cfnEvent('Create'), lambdaContext(300_000));
    expect(response).toEqual({
      PhysicalResourceId: `inbox-migrations:${database}`,
      Data: { Applied: REPO_MIGRATIONS.join(','), AlreadyApplied: '' },
    });
    const tables = await admin((client) => client.query<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'"), databaseUrl(adminUrl, database));
    expect(tables.rows.map((row) => row.name)).toEqual(expect.arrayContaining(['consumed_message', 'schema_migrations']));
  });

  it('applies nothing twice on the next deploy', async () => {
    const response = await handler(cfnEvent('Update', `inbox-migrations:${database}`), lambdaContext(300_000));
    expect(response.Data).toEqual({ Applied: '', AlreadyApplied: REPO_MIGRATIONS.join(',') });
  });

  it('fails on a bad migration, naming its file, and applies none of the run', async () => {
    for (const file of REPO_MIGRATIONS) writeFileSync(path.join(scratch, file), readFileSync(path.join(MIGRATIONS_DIR, file)));
    writeFileSync(path.join(scratch, '9001_good.sql'), 'CREATE TABLE migrate_probe (id int);');
    writeFileSync(path.join(scratch, '9002_broken.sql'), 'CREATE TABLE migrate_probe_2 (id int);\nALTER TABLE no_such_table ADD COLUMN x int;');
    process.env.MIGRATIONS_DIR = scratch;
    try {
      await expect(handler(cfnEvent('Update', `inbox-migrations:${database}`), lambdaContext(300_000))).rejects.toThrow(/Migration 9002_broken\.sql failed at statement 2 of 2/);
    } finally {
      process.env.MIGRATIONS_DIR = MIGRATIONS_DIR;
    }
    const probe = await admin((client) => client.query("SELECT to_regclass('migrate_probe') AS t"), databaseUrl(adminUrl, database));
    expect(probe.rows[0].t).toBeNull();
  });

  it('waits for a paused database to resume', async () => {
    api.resetStats();
    api.pause(800);
    const response = await handler(cfnEvent('Update', `inbox-migrations:${database}`), lambdaContext(300_000));
    expect(response.Data?.AlreadyApplied).toBe(REPO_MIGRATIONS.join(','));
    expect(api.stats().errors.DatabaseResumingException).toBeGreaterThan(0);
  });

  it('does not touch the database on Delete', async () => {
    api.resetStats();
    await handler(cfnEvent('Delete', `inbox-migrations:${database}`), lambdaContext(300_000));
    expect(api.stats().total).toBe(0);
  });
});
