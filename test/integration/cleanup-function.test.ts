import type { Context } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CleanupRunReport } from '../../functions/inbox-cleanup/metrics.js';
import { LOCAL_DATA_API_TARGET, startDataApi, type RunningDataApi } from '../../local/data-api/index.js';
import { freshDatabase, type FreshDatabase } from '../support/database.js';
import { captureStdout } from '../support/capture-stdout.js';
import { lambdaContext } from '../support/sqs-events.js';

const NAMESPACE = 'SqsInbox/cleanup-test';

describe('the scheduled cleanup handler over the Data API (emulator, real PostgreSQL)', () => {
  let fresh: FreshDatabase;
  let api: RunningDataApi;
  let handler: (event: unknown, context: Context) => Promise<CleanupRunReport>;
  let stdout: ReturnType<typeof captureStdout>;

  /** Inserts `count` inbox rows processed `ageDays` ago. */
  const rows = (count: number, ageDays: number) => fresh.pool.query(
    `INSERT INTO consumed_message (consumer_name, message_id, payload_hash, processed_at)
     SELECT 'cleanup-fn', $1 || g, 'h', now() - make_interval(days => $2) FROM generate_series(1, $3) g`, [`${ageDays}d-${Math.random()}-`, ageDays, count]);
  const remaining = async () => (await fresh.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM consumed_message')).rows[0]!.n;

  beforeAll(async () => {
    fresh = await freshDatabase();
    api = await startDataApi({ databaseUrl: fresh.url });
    // What the stack gives the function in AWS, pointed at the emulator; read when the module loads.
    Object.assign(process.env, {
      CLUSTER_ARN: LOCAL_DATA_API_TARGET.resourceArn,
      SECRET_ARN: LOCAL_DATA_API_TARGET.secretArn,
      DATABASE_NAME: decodeURIComponent(new URL(fresh.url).pathname.slice(1)),
      AWS_ENDPOINT_URL_RDS_DATA: api.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      RETENTION_DAYS: '21',
      CLEANUP_BATCH_SIZE: '10',
      POWERTOOLS_SERVICE_NAME: 'inbox-cleanup',
      POWERTOOLS_METRICS_NAMESPACE: NAMESPACE,
    });
    ({ handler } = await import('../../functions/inbox-cleanup/index.js'));
  });

  afterAll(async () => {
    await api?.close();
    await fresh?.close();
  });

  beforeEach(async () => {
    await fresh.pool.query('DELETE FROM consumed_message');
    api.pause(0);
    api.resetStats();
    stdout = captureStdout();
  });
  afterEach(() => stdout.restore());

  it('deletes the rows past the retention and publishes deleted and done, flushed in the namespace', async () => {
    await rows(25, 30);
    await rows(5, 2);

    const report = await handler({}, lambdaContext(600_000));

    expect(report).toEqual({ deleted: 25, batches: 3, done: true, kept: { deleted: 0, batches: 1, done: true } });
    expect(await remaining()).toBe(5);
    const [emf, ...more] = stdout.emf();
    expect(more).toEqual([]);
    expect(emf).toMatchObject({ deleted: 25, done: 1, service: 'inbox-cleanup' });
    expect(JSON.stringify(emf)).toContain(NAMESPACE);
  });

  it('waits out a resume that takes about 15 s, longer than the driver waits by itself', { timeout: 60_000 }, async () => {
    await rows(3, 30);
    api.pause(15_000);

    const report = await handler({}, lambdaContext(600_000));

    expect(report).toMatchObject({ deleted: 3, done: true });
    expect(api.stats().errors.DatabaseResumingException).toBeGreaterThan(0);
    expect(stdout.emf()[0]).toMatchObject({ deleted: 3, done: 1 });
  });

  it('publishes done = 0 when the run has no time for a batch, so the backlog alarm can count it', async () => {
    await rows(3, 30);

    const report = await handler({}, lambdaContext(4_000));

    expect(report).toEqual({ deleted: 0, batches: 0, done: false, kept: { deleted: 0, batches: 0, done: false } });
    expect(await remaining()).toBe(3);
    expect(stdout.emf()[0]).toMatchObject({ deleted: 0, done: 0 });
  });

  it('publishes done = 0 and fails the invocation when the cluster does not resume in time', { timeout: 60_000 }, async () => {
    await rows(3, 30);
    api.pause(60_000);

    await expect(handler({}, lambdaContext(20_000))).rejects.toThrow(/resum/i);

    expect(await remaining()).toBe(3);
    expect(stdout.emf()[0]).toMatchObject({ done: 0 });
    expect(stdout.emf()[0]).not.toHaveProperty('deleted');
  });

  it('with OUTBOX_RETENTION_DAYS also deletes the dispatched outbox rows past it, publishing outboxDeleted, and keeps the open ones', async () => {
    await fresh.pool.query(`INSERT INTO outbox_message (id, consumer_name, message_key, target, body, size_bytes, dispatched_at)
      SELECT gen_random_uuid(), 'cleanup-fn', 'k' || g, 'shipped', 'b', 1, CASE WHEN g <= 4 THEN now() - interval '10 days' END FROM generate_series(1, 6) g`);
    process.env.OUTBOX_RETENTION_DAYS = '7';
    try {
      const report = await handler({}, lambdaContext(600_000));

      expect(report.outbox).toEqual({ deleted: 4, groupsDeleted: 0, batches: 2, done: true });
      expect(stdout.emf()[0]).toMatchObject({ outboxDeleted: 4, done: 1 });
      const { rows: left } = await fresh.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox_message WHERE dispatched_at IS NULL');
      expect(left[0]!.n).toBe(2);
    } finally {
      delete process.env.OUTBOX_RETENTION_DAYS;
      await fresh.pool.query('DELETE FROM outbox_message');
    }
  });

  it('deletes kept messages past KEPT_RETENTION_DAYS (90 by default), longer than the inbox rows', async () => {
    await fresh.pool.query(`INSERT INTO kept_message (consumer_name, message_key, kept_as, reason, source, body, body_encoding, body_bytes, kept_bytes, origin, kept_at)
      SELECT 'cleanup-fn', 'k' || d, 'rejected', 'r', 'sqs', 'b', 'utf8', 1, 1, '{}', now() - make_interval(days => d) FROM unnest(ARRAY[30, 100, 200]) d`);
    const keys = async () => (await fresh.pool.query<{ message_key: string }>('SELECT message_key FROM kept_message ORDER BY kept_at DESC')).rows.map((row) => row.message_key);
    try {
      expect((await handler({}, lambdaContext(600_000))).kept).toMatchObject({ deleted: 2, done: true });
      expect(await keys()).toEqual(['k30']);

      process.env.KEPT_RETENTION_DAYS = '7';
      expect((await handler({}, lambdaContext(600_000))).kept).toMatchObject({ deleted: 1, done: true });
      expect(await keys()).toEqual([]);
    } finally {
      delete process.env.KEPT_RETENTION_DAYS;
    }
  });
});
