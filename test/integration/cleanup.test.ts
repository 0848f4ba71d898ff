import { describe, expect, it } from 'vitest';
import { InboxConfigError } from '../../functions/inbox/index.js';
import { cleanupInbox } from '../../functions/inbox/cleanup/index.js';
import { CLEANUP_BATCH_SIZE } from '../../functions/inbox/contract.js';
import { cleanupSettings } from '../../functions/inbox-cleanup/settings.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
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
      expect(cleanupSettings({ RETENTION_DAYS: '14', CLEANUP_BATCH_SIZE: '500' })).toEqual({ retentionMs: 14 * DAY_MS, batchSize: 500 });
      expect(() => cleanupSettings({})).toThrow(/RETENTION_DAYS must be a positive number/);
      expect(() => cleanupSettings({ RETENTION_DAYS: '-1' })).toThrow(/but "-1" was given/);
    });
  });
});
