import { describe, expect, it } from 'vitest';
import { runKafkaMainJob } from '../../demo/kafka-main-job.js';
import { freshDatabase } from '../support/database.js';
import { inboxRows } from '../support/orders.js';

describe('the main job on Kafka (npm start -- --source kafka)', () => {
  it('settles every record from the database, keeps each partition in order, and parks only the stuck orders, under every fault at once', async () => {
    const database = await freshDatabase();
    try {
      const report = await runKafkaMainJob({
        databaseUrl: database.url,
        orders: 400,
        partitions: 8,
        poison: 6,
        stuck: 2,
        crashRate: 0.3,
        deliverTwiceRate: 0.1,
        producerRetryRate: 0.05,
        batchSize: 40,
        seed: 3,
      });
      const { rows } = await database.pool.query<{ version: number; orders: number }>('SELECT version, count(*)::int AS orders FROM orders GROUP BY version ORDER BY version');
      const inbox = await inboxRows(database.pool, 'ship-order');

      expect(report.crashes.beforeCommit + report.crashes.afterCommit).toBeGreaterThan(0);
      expect(report.lostAcks).toBeGreaterThan(0);
      expect(report.stored).toBe(report.sent + report.lostAcks);
      expect(report).toMatchObject({ applied: 398, rejected: 6, keptRejected: 6, rejectedUnkept: 0, inDlq: 2, stuckInDlq: 2, doubleEffects: 0, unclaimedEffects: 0, lost: 0, orderBreaks: 0, notSent: 0 });
      expect(Object.keys(report.failureReasons).filter((reason) => reason !== 'DatabaseQueryError 55P03' && reason !== 'InjectedCrashError')).toEqual([]);
      expect(rows).toEqual([{ version: 0, orders: 2 }, { version: 1, orders: 398 }]);
      expect([...inbox.values()].filter((row) => row.status === 'processed')).toHaveLength(398);
      // One order in twenty has a non-ASCII key, sent in headers as signed Java bytes: each is applied under its text.
      const nonAscii = [...inbox.entries()].filter(([key]) => /[^\x20-\x7e]/.test(key));
      expect(nonAscii.map(([, row]) => row.status)).toEqual(Array.from({ length: 20 }, () => 'processed'));
    } finally {
      await database.close();
    }
  }, 120_000);
});
