import { describe, expect, it } from 'vitest';
import { InboxConfigError } from '../../functions/inbox/index.js';
import { cleanupInbox } from '../../functions/inbox/cleanup/index.js';
import { CLEANUP_BATCH_SIZE } from '../../functions/inbox/contract.js';
import { cleanupSettings } from '../../functions/inbox-cleanup/settings.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { planOn, recordingDatabase } from '../support/query-plan.js';
import { uniqueConsumer } from '../support/orders.js';

const DAY_MS = 86_400_000;

describe.each(drivers)('inbox cleanup on $name', (driver) => {
  const fx = useInboxDatabase(driver);

  /** Inserts `count` inbox rows processed `ageDays` ago. */
  const rows = (consumer: string, count: number, ageDays: number) => fx.pool.query(
    `INSERT INTO consumed_message (consumer_name, message_id, payload_hash, processed_at)
     SELECT $1, $2 || g, 'h', now() - make_interval(days => $3) FROM generate_series(1, $4) g`, [consumer, `${ageDays}d-`, ageDays, count]);
  const remaining = async (consumer: string) => (await fx.pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM consumed_message WHERE consumer_name = $1', [consumer])).rows[0]!.n;

  describe('retention', () => {
    it('deletes only rows past the retention, in batches of the given size', async () => {
      await fx.pool.query('DELETE FROM consumed_message');
      const consumer = uniqueConsumer('clean');
      await rows(consumer, 25, 20);
      await rows(consumer, 7, 3);

      const report = await cleanupInbox(fx.db, { retentionMs: 14 * DAY_MS, batchSize: 10 });

      expect(report).toEqual({ deleted: 25, batches: 3, done: true });
      expect(await remaining(consumer)).toBe(7);
    });
  });

  describe('a batch costs the same whatever the size of the table', () => {
    it('reaches its rows through the processed_at index, never a scan of the whole table', async () => {
      await fx.pool.query('DELETE FROM consumed_message');
      const consumer = uniqueConsumer('plan');
      // Enough rows that joining a batch of 1000 to the table by its key is planned as a scan of it.
      await rows(consumer, 20_000, 20);
      await fx.pool.query('ANALYZE consumed_message');
      const recorded = recordingDatabase(fx.db);
      let asked = 0;

      // Time for one batch, so the plan is read with the table as its statistics say.
      const report = await cleanupInbox(recorded.db, { retentionMs: 14 * DAY_MS, batchSize: 1000, marginMs: 1, remainingMs: () => (++asked === 1 ? 1 : 0) });

      expect(report).toEqual({ deleted: 1000, batches: 1, done: false });
      expect(recorded.statements).toHaveLength(1);
      const nodes = await planOn(fx.pool, recorded.statements[0]!, 'consumed_message');
      // The delete and its two reads of the table, each through an index (a plain or a bitmap scan).
      expect(nodes).toHaveLength(3);
      expect(nodes.filter((node) => !['Index Scan', 'Bitmap Heap Scan', 'ModifyTable'].includes(node))).toEqual([]);
    });
  });

  describe('the deadline', () => {
    it('stops starting batches when the remaining time is under the margin', async () => {
      await fx.pool.query('DELETE FROM consumed_message');
      const consumer = uniqueConsumer('deadline');
      await rows(consumer, 30, 20);
      let calls = 0;

      const report = await cleanupInbox(fx.db, { retentionMs: 14 * DAY_MS, batchSize: 10, marginMs: 1000, remainingMs: () => (++calls <= 2 ? 5000 : 10) });

      expect(report).toEqual({ deleted: 20, batches: 2, done: false });
      expect(await remaining(consumer)).toBe(10);
    });
  });

  describe('settings', () => {
    it('refuses a retention under a minute and a batch size out of range', async () => {
      await expect(cleanupInbox(fx.db, { retentionMs: 1000 })).rejects.toThrow(InboxConfigError);
      await expect(cleanupInbox(fx.db, { retentionMs: DAY_MS, batchSize: 0 })).rejects.toThrow(/batchSize .* but 0 was given/);
    });
    it('takes batch sizes up to the limit the stack validates its context against, and no more', async () => {
      const { max } = CLEANUP_BATCH_SIZE;
      await expect(cleanupInbox(fx.db, { retentionMs: DAY_MS, batchSize: max })).resolves.toMatchObject({ done: true });
      await expect(cleanupInbox(fx.db, { retentionMs: DAY_MS, batchSize: max + 1 })).rejects.toThrow(`from 1 to ${max}, but ${max + 1} was given`);
    });
    it('reads RETENTION_DAYS and CLEANUP_BATCH_SIZE from the environment', () => {
      expect(cleanupSettings({ RETENTION_DAYS: '14', CLEANUP_BATCH_SIZE: '500' })).toEqual({ retentionMs: 14 * DAY_MS, batchSize: 500, keptRetentionMs: 90 * DAY_MS });
      expect(() => cleanupSettings({})).toThrow(/RETENTION_DAYS must be a positive number/);
      expect(() => cleanupSettings({ RETENTION_DAYS: '-1' })).toThrow(/but "-1" was given/);
    });
  });
});
