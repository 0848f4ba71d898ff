import { describe, expect, it } from 'vitest';
import { CONSUMER_FAULTS, ORDERS, QUIET_RUN, runOnFreshDatabase, unexpectedFailures } from '../support/main-job.js';

describe.each(['fifo', 'standard'] as const)('every unique order is applied exactly once, on a %s queue, under', (queue) => {
  it.each(CONSUMER_FAULTS)('%s', async (_fault, fault, fired) => {
    const { report, timesApplied } = await runOnFreshDatabase({ ...QUIET_RUN, ...fault, queue });

    expect(fired(report)).toBeGreaterThan(0);
    expect(unexpectedFailures(report)).toEqual([]);
    expect(report.duplicatesSuppressed).toBeGreaterThan(0);
    expect(timesApplied).toEqual(Array.from({ length: ORDERS }, () => 1));
    expect(report).toMatchObject({ applied: ORDERS, doubleEffects: 0, unclaimedEffects: 0, lost: 0, inDlq: 0 });
  }, 60_000);
});
