import { describe, expect, it } from 'vitest';
import { runMainJob } from '../../demo/main-job.js';
import { freshDatabase } from '../support/database.js';
import { inboxRows } from '../support/orders.js';

describe('the main job (npm start) on the local stack', () => {
  it('settles every message from the database: applied once, rejected, or parked in the DLQ, under every fault at once', async () => {
    const database = await freshDatabase();
    try {
      const report = await runMainJob({
        databaseUrl: database.url,
        orders: 300,
        poison: 6,
        stuck: 2,
        crashRate: 0.2,
        deliverTwiceRate: 0.05,
        producerRetryRate: 0.05,
        producerAttempts: 10,
        // Long enough that a batch sharing an invocation with a stuck order (500 ms on its lock) ends
        // in time. Crashes spare a message's last receive, so only the stuck orders reach the DLQ.
        visibilityTimeoutSeconds: 2,
        seed: 3,
      });
      const { rows } = await database.pool.query<{ version: number; orders: number }>('SELECT version, count(*)::int AS orders FROM orders GROUP BY version ORDER BY version');
      const inbox = await inboxRows(database.pool, 'ship-order');

      expect(report.crashes.beforeCommit + report.crashes.afterCommit).toBeGreaterThan(0);
      expect(report.deliveredTwice).toBeGreaterThan(0);
      expect(report).toMatchObject({ applied: 298, rejected: 6, keptRejected: 6, rejectedUnkept: 0, inDlq: 2, stuckInDlq: 2, doubleEffects: 0, unclaimedEffects: 0, lost: 0, notSent: 0 });
      expect(Object.keys(report.failureReasons).sort()).toEqual(['DatabaseQueryError 55P03', 'InjectedCrashError']);
      expect(rows).toEqual([{ version: 0, orders: 2 }, { version: 1, orders: 298 }]);
      expect([...inbox.values()].filter((row) => row.status === 'rejected')).toHaveLength(6);
      expect([...inbox.values()].filter((row) => row.status === 'processed')).toHaveLength(298);
      // The report ends with `npx sqs-inbox status` of the run's database: the six rejected wait for a replay.
      expect(report.status.exitCode).toBe(1);
      expect(report.status.text).toMatch(/^Since .*\nconsumer\s+processed\s+rejected[\s\S]*\nship-order\s+298\s+6\s/);
      expect(report.status.text).toContain('ship-order: 6 rejected messages wait for a replay');
      expect(report.status.text).toMatch(/Last runs\n {2}cleanup: never/);
    } finally {
      await database.close();
    }
  }, 90_000);

  it('with --redrive: committed messages dead-lettered by lost deletes and the stuck orders, redriven, end applied once, the DLQ empty', async () => {
    const database = await freshDatabase();
    try {
      const report = await runMainJob({
        databaseUrl: database.url,
        orders: 200,
        poison: 4,
        stuck: 2,
        crashRate: 0.1,
        deliverTwiceRate: 0.05,
        producerRetryRate: 0.05,
        producerAttempts: 10,
        redrive: true,
        lostDeletes: 3,
        seed: 5,
      });
      const { rows } = await database.pool.query<{ version: number; orders: number }>('SELECT version, count(*)::int AS orders FROM orders GROUP BY version ORDER BY version');

      // 2 stuck + 3 with lost deletes went to the DLQ and came back under new messageIds.
      expect(report.redriven).toBe(5);
      expect(report).toMatchObject({ applied: 200, rejected: 4, inDlq: 0, doubleEffects: 0, unclaimedEffects: 0, lost: 0, notSent: 0 });
      expect(rows).toEqual([{ version: 1, orders: 200 }]);
    } finally {
      await database.close();
    }
  }, 120_000);
});
