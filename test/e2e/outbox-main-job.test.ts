import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { runMainJob, type MainJobOptions } from '../../demo/main-job.js';
import { sqsReportLines } from '../../demo/report-lines.js';
import { sqsRunFailure } from '../../demo/run-verdict.js';
import { freshDatabase } from '../support/database.js';

/** A small run of both hops with every fault of the second at rates that strike often. */
const SMALL_OUTBOX_RUN = {
  outbox: true,
  orders: 300,
  poison: 4,
  stuck: 1,
  crashRate: 0.2,
  deliverTwiceRate: 0.05,
  producerRetryRate: 0.05,
  producerAttempts: 10,
  sendCrashRate: 0.3,
  sendFaultRate: 0.1,
  relayCrashes: 2,
  relayTwiceRate: 0.5,
  seed: 4,
} as const satisfies MainJobOptions;

/** What the database says of the second hop, independently of the report: notices per shipped order, notices of orders not shipped, rows not dispatched. */
async function readSecondHop(pool: pg.Pool): Promise<{ noticesPerOrder: { notices: number; orders: number }[]; unshipped: number; open: number }> {
  const { rows: noticesPerOrder } = await pool.query<{ notices: number; orders: number }>(`SELECT notices, count(*)::int AS orders FROM (
      SELECT o.order_id, (SELECT count(*)::int FROM shipment_notice n WHERE n.order_id = o.order_id) AS notices FROM orders o WHERE o.version > 0
    ) counted GROUP BY notices ORDER BY notices`);
  // A notice for an order that never shipped is a message sent for a transaction that rolled back.
  const { rows: [unshipped] } = await pool.query<{ notices: number }>(`SELECT count(*)::int AS notices FROM shipment_notice n
      WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.order_id = n.order_id AND o.version > 0)`);
  const { rows: [open] } = await pool.query<{ open: number }>("SELECT count(*)::int AS open FROM outbox_message WHERE consumer_name = 'ship-order' AND dispatched_at IS NULL");
  return { noticesPerOrder, unshipped: unshipped!.notices, open: open!.open };
}

describe('the main job with its second hop (npm start -- --outbox)', () => {
  it('sends one OrderShipped per shipped order on through the outbox and writes one notice each, in group order, under every fault of both hops', async () => {
    const database = await freshDatabase();
    try {
      const report = await runMainJob({ ...SMALL_OUTBOX_RUN, databaseUrl: database.url });
      const hop = report.outbox!;
      const lines = new Map(sqsReportLines(report));

      // The faults of the second hop struck: sends died on both sides of the send, relays died and ran two at once, answers were lost.
      expect(hop.faults.sendCrashes.beforeSend + hop.faults.sendCrashes.afterSend).toBeGreaterThan(0);
      expect(hop.faults.lostSendAnswers).toBeGreaterThan(0);
      expect(hop.relay.crashes).toBeGreaterThan(0);
      expect(hop.relay.twiceAtOnce).toBeGreaterThan(0);
      expect(hop.noticeCrashes.beforeCommit + hop.noticeCrashes.afterCommit).toBeGreaterThan(0);
      // Copies past the deduplication window reached the notice worker: its inbox, not SQS, kept them single.
      expect(hop.resentCopies).toBeGreaterThan(0);
      expect(hop.relay.errors).toEqual({});
      expect(report).toMatchObject({ applied: 299, doubleEffects: 0, lost: 0 });
      expect(hop).toMatchObject({ notices: 299, notDispatched: 0, doubleEffects: 0, lost: 0, orderBreaks: 0, phantom: 0, inDlq: 0 });
      expect(hop.sentAfterCommit + hop.sentByRelay).toBe(299);
      expect(hop.sentAfterCommit).toBeGreaterThan(0);
      expect(hop.sentByRelay).toBeGreaterThan(0);
      expect(await readSecondHop(database.pool)).toEqual({ noticesPerOrder: [{ notices: 1, orders: 299 }], unshipped: 0, open: 0 });
      const mustBeZero = ['outbox rows not dispatched (must be 0)', 'double effects downstream (must be 0)', 'lost downstream (must be 0)', 'order breaks downstream (must be 0)', 'phantom notices downstream (must be 0)',
        'broken traces: shipped orders whose notice left their trace (must be 0)'];
      expect([...lines.keys()].slice(-8, -2)).toEqual(mustBeZero);
      expect(mustBeZero.map((label) => lines.get(label))).toEqual([0, 0, 0, 0, 0, 0]);
      // Every shipped order's notice is in the trace its producer started, through the relay and the crashes too.
      expect(hop.brokenTraces).toBe(0);
      expect(lines.get('sent after commit')).toBe(hop.sentAfterCommit);
      expect(lines.get('sent by the relay')).toBe(hop.sentByRelay);
      expect(sqsRunFailure(report)).toBeUndefined();
    } finally {
      await database.close();
    }
  }, 120_000);

  it('without the notice worker\'s inbox the same faults write notices twice, and the run fails', async () => {
    const database = await freshDatabase();
    try {
      const report = await runMainJob({ ...SMALL_OUTBOX_RUN, unguardedNotices: true, databaseUrl: database.url });
      const hop = report.outbox!;
      const { noticesPerOrder } = await readSecondHop(database.pool);

      expect(hop.doubleEffects).toBeGreaterThan(0);
      expect(noticesPerOrder.filter((row) => row.notices > 1).reduce((sum, row) => sum + row.orders, 0)).toBe(hop.doubleEffects);
      expect(new Map(sqsReportLines(report)).get('double effects downstream (must be 0)')).toBe(hop.doubleEffects);
      expect(sqsRunFailure(report)).toMatch(/the second hop .* wrote a notice twice/);
    } finally {
      await database.close();
    }
  }, 120_000);

  it('with the outbox sending its rows without their trace context, every notice leaves its trace, and the run fails', async () => {
    const database = await freshDatabase();
    try {
      const report = await runMainJob({ ...SMALL_OUTBOX_RUN, dropTraceContext: true, databaseUrl: database.url });
      const hop = report.outbox!;

      expect(hop).toMatchObject({ notices: 299, doubleEffects: 0, lost: 0, brokenTraces: 299 });
      expect(new Map(sqsReportLines(report)).get('broken traces: shipped orders whose notice left their trace (must be 0)')).toBe(299);
      expect(sqsRunFailure(report)).toMatch(/299 shipped orders' notices are not in the trace their producer started/);
    } finally {
      await database.close();
    }
  }, 120_000);
});
