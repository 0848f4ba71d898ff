import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cleanupOutbox } from '../../functions/inbox/cleanup/index.js';
import { cleanupSettings } from '../../functions/inbox-cleanup/settings.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { uniqueConsumer } from '../support/orders.js';
import { outboxGroups, outboxRows } from '../support/outbox.js';
import { planOn, recordingDatabase } from '../support/query-plan.js';

const DAY_MS = 86_400_000;

describe.each(drivers)('the outbox cleanup on $name', (driver) => {
  const fx = useInboxDatabase(driver);

  /** Rows of `state`, the dispatch or failure (or the write, when open) `ageDays` ago. */
  const rows = (consumer: string, state: 'dispatched' | 'failed' | 'open', count: number, ageDays: number) => fx.pool.query(
    `INSERT INTO outbox_message (id, consumer_name, message_key, target, body, size_bytes, created_at, dispatched_at, failed_at, error)
     SELECT gen_random_uuid(), $1, 'k' || g, 'shipped', 'b', 1, now() - make_interval(days => $3),
       CASE WHEN $2 = 'dispatched' THEN now() - make_interval(days => $3) END,
       CASE WHEN $2 = 'failed' THEN now() - make_interval(days => $3) END,
       CASE WHEN $2 = 'failed' THEN 'QueueDoesNotExist' END
     FROM generate_series(1, $4) g`, [consumer, state, ageDays, count]);
  const group = (consumer: string, openRows: number, ageDays: number) => fx.pool.query(
    `INSERT INTO outbox_group (consumer_name, target, group_id, next_seq, open_rows, touched_at)
     VALUES ($1, 'shipped', $2, 5, $3, now() - make_interval(days => $4))`, [consumer, `g-${randomUUID().slice(0, 6)}`, openRows, ageDays]);
  const states = async (consumer: string) => (await outboxRows(fx.pool, consumer))
    .map((row) => (row.dispatched_at ? 'dispatched' : row.failed_at ? 'failed' : 'open')).sort();

  describe('dispatched rows past their retention go; undispatched and failed rows never do', () => {
    it('deletes only dispatched rows older than the retention, in batches of the given size', async () => {
      await fx.pool.query('DELETE FROM outbox_message');
      const consumer = uniqueConsumer('outbox-clean');
      await rows(consumer, 'dispatched', 25, 10);
      await rows(consumer, 'dispatched', 2, 1);
      await rows(consumer, 'failed', 3, 30);
      await rows(consumer, 'open', 4, 30);

      const report = await cleanupOutbox(fx.db, { retentionMs: 7 * DAY_MS, batchSize: 10 });

      expect(report).toEqual({ deleted: 25, groupsDeleted: 0, batches: 4, done: true });
      expect(await states(consumer)).toEqual([...Array(2).fill('dispatched'), ...Array(3).fill('failed'), ...Array(4).fill('open')]);
    });

    it('deletes FIFO groups with nothing open and untouched for the retention, and keeps the others', async () => {
      await fx.pool.query('DELETE FROM outbox_group');
      const consumer = uniqueConsumer('outbox-groups');
      await group(consumer, 0, 10);
      await group(consumer, 0, 1);
      await group(consumer, 2, 30);

      const report = await cleanupOutbox(fx.db, { retentionMs: 7 * DAY_MS });

      expect(report).toMatchObject({ groupsDeleted: 1, done: true });
      expect((await outboxGroups(fx.pool, consumer)).map((g) => g.open_rows).sort()).toEqual([0, 2]);
    });

    it('reaches a batch of rows through their ids, never a scan of the whole table', async () => {
      await fx.pool.query('DELETE FROM outbox_message');
      await rows(uniqueConsumer('outbox-plan'), 'dispatched', 20_000, 10);
      await fx.pool.query('ANALYZE outbox_message');
      const recorded = recordingDatabase(fx.db);
      let asked = 0;

      // Time for one batch, so the plan is read with the table as its statistics say.
      const report = await cleanupOutbox(recorded.db, { retentionMs: 7 * DAY_MS, batchSize: 1000, marginMs: 1, remainingMs: () => (++asked === 1 ? 1 : 0) });

      expect(report).toEqual({ deleted: 1000, groupsDeleted: 0, batches: 1, done: false });
      expect(recorded.statements).toHaveLength(1);
      const nodes = await planOn(fx.pool, recorded.statements[0]!, 'outbox_message');
      // The delete and its two reads of the table, each through an index (a plain or a bitmap scan).
      expect(nodes).toHaveLength(3);
      expect(nodes.filter((node) => !['Index Scan', 'Bitmap Heap Scan', 'ModifyTable'].includes(node))).toEqual([]);
    });

    it('stops starting batches under the margin, and says it is not done', async () => {
      await fx.pool.query('DELETE FROM outbox_message');
      const consumer = uniqueConsumer('outbox-deadline');
      await rows(consumer, 'dispatched', 30, 10);
      let asked = 0;

      const report = await cleanupOutbox(fx.db, { retentionMs: DAY_MS, batchSize: 10, marginMs: 1000, remainingMs: () => (++asked <= 2 ? 5000 : 10) });

      expect(report).toEqual({ deleted: 20, groupsDeleted: 0, batches: 2, done: false });
    });

    it('refuses a retention under a minute', async () => {
      await expect(cleanupOutbox(fx.db, { retentionMs: 1000 })).rejects.toThrow(/retentionMs must be at least 60000/);
    });
  });
});

describe('the cleanup function cleans the outbox when OUTBOX_RETENTION_DAYS is set', () => {
  it('reads it as days, and leaves the outbox alone without it', () => {
    expect(cleanupSettings({ RETENTION_DAYS: '21', OUTBOX_RETENTION_DAYS: '7' })).toEqual({ retentionMs: 21 * DAY_MS, batchSize: undefined, outboxRetentionMs: 7 * DAY_MS, keptRetentionMs: 90 * DAY_MS });
    expect(cleanupSettings({ RETENTION_DAYS: '21' }).outboxRetentionMs).toBeUndefined();
    expect(() => cleanupSettings({ RETENTION_DAYS: '21', OUTBOX_RETENTION_DAYS: 'a week' })).toThrow(/OUTBOX_RETENTION_DAYS must be a positive number of days, but "a week"/);
  });
});
