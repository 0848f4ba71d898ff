import { describe, expect, it } from 'vitest';
import { CONSUMER_FAULTS, ORDERS, QUIET_RUN, runOnFreshDatabase, unexpectedFailures } from '../support/main-job.js';

describe.each(['fifo', 'standard'] as const)('every unique order is applied exactly once, on a %s queue, a statement a message, under', (queue) => {
  it.each(CONSUMER_FAULTS)('%s', async (_fault, fault, fired) => {
    const { report, timesApplied } = await runOnFreshDatabase({ ...QUIET_RUN, ...fault, queue, batchStatements: false });

    expect(fired(report)).toBeGreaterThan(0);
    expect(unexpectedFailures(report)).toEqual([]);
    expect(report.duplicatesSuppressed).toBeGreaterThan(0);
    expect(timesApplied).toEqual(Array.from({ length: ORDERS }, () => 1));
    expect(report).toMatchObject({ applied: ORDERS, doubleEffects: 0, unclaimedEffects: 0, lost: 0, inDlq: 0 });
  }, 60_000);
});

// Batched, a batch's records commit together: a death before that commit leaves none of them
// committed, so its redelivery applies them fresh (no duplicate to suppress); a death after it
// leaves all of them committed, and the redelivery finds every one a duplicate.
describe.each(['fifo', 'standard'] as const)('every unique order is applied exactly once, on a %s queue, statements batched, under', (queue) => {
  it.each(CONSUMER_FAULTS)('%s', async (fault, settings, fired) => {
    const { report, timesApplied } = await runOnFreshDatabase({ ...QUIET_RUN, ...settings, queue, batchStatements: true });

    expect(fired(report)).toBeGreaterThan(0);
    expect(unexpectedFailures(report)).toEqual([]);
    if (!fault.includes('before a commit')) expect(report.duplicatesSuppressed).toBeGreaterThan(0);
    expect(timesApplied).toEqual(Array.from({ length: ORDERS }, () => 1));
    expect(report).toMatchObject({ applied: ORDERS, doubleEffects: 0, unclaimedEffects: 0, lost: 0, inDlq: 0 });
  }, 60_000);
});
