import { describe, expect, it } from 'vitest';
import { formatDataApiStats, type MainJobOptions } from '../../local/demo/main-job.js';
import { QUIET_RUN, runOnFreshDatabase, unexpectedFailures } from '../support/main-job.js';

/**
 * Issue 12's shape, scaled down: transaction mode on the Data API, four environments, batches of
 * 10, copies of one message with up to three pollers at once, a 1 s lock timeout, a 1.5 s function
 * timeout (an invocation still running then dies, as Lambda resets it) and a 2 s visibility
 * timeout, and invocations dying right after a commit. A dead invocation sends neither COMMIT nor
 * ROLLBACK for its other open transactions, so their claims stay locked until the transaction ends.
 */
const SHAPE = {
  ...QUIET_RUN,
  orders: 400,
  queue: 'standard',
  mode: 'transaction',
  driver: 'data-api',
  pollers: 4,
  crashRate: 0.4,
  crashes: ['after-commit'],
  deliverTwiceRate: 0.5,
  copies: 3,
  lockTimeoutMs: 1000,
  functionTimeoutMs: 1500,
  deadlineMarginMs: 300,
  visibilityTimeoutSeconds: 2,
  drainTimeoutMs: 60_000,
} as const satisfies MainJobOptions;

describe('in transaction mode on the Data API, invocations that die right after a commit, with copies of a message in flight at once, still drain the queue', () => {
  // The service keeps a transaction nobody calls for 3 minutes; the queue must not wait that out.
  // (bench/dead-invocations.ts runs the issue's own 3 s beside the pg driver and prints the times.)
  it('with the dead invocations\' open transactions kept 3 minutes without a call, as on the service', async () => {
    const { report, timesApplied } = await runOnFreshDatabase({ ...SHAPE, transactionIdleTimeoutMs: 180_000 });
    const emulator = `Data API emulator: ${formatDataApiStats(report.dataApi)}; failures: ${JSON.stringify(report.failureReasons)}`;

    expect(report.crashes.afterCommit, emulator).toBeGreaterThan(0);
    expect(report.deliveredTwice, emulator).toBeGreaterThan(0);
    expect(unexpectedFailures(report), emulator).toEqual([]);
    expect(timesApplied, emulator).toHaveLength(SHAPE.orders);
    expect(timesApplied.every((times) => times === 1), emulator).toBe(true);
    expect(report, emulator).toMatchObject({ applied: SHAPE.orders, doubleEffects: 0, unclaimedEffects: 0, lost: 0, inDlq: 0 });
  }, 90_000);
});
