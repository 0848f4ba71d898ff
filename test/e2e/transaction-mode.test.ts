import { describe, expect, it } from 'vitest';
import { CONSUMER_FAULTS, ORDERS, QUIET_RUN, runOnFreshDatabase, unexpectedFailures } from '../support/main-job.js';

// The payment's own primary key would stop a second insert, so a broken inbox shows here as a
// failure reason (23505) or a message in the DLQ rather than as a double payment; the FIFO order
// test runs transaction mode on an effect with no key of its own.
describe('in transaction mode (a payment row and the order\'s total in the claim\'s transaction), every order is paid exactly once under', () => {
  it.each(CONSUMER_FAULTS)('%s', async (_fault, fault, fired) => {
    const { report, timesApplied } = await runOnFreshDatabase({ ...QUIET_RUN, ...fault, queue: 'fifo', mode: 'transaction' });

    expect(fired(report)).toBeGreaterThan(0);
    expect(unexpectedFailures(report)).toEqual([]);
    expect(timesApplied).toEqual(Array.from({ length: ORDERS }, () => 1));
    expect(report).toMatchObject({ applied: ORDERS, doubleEffects: 0, unclaimedEffects: 0, lost: 0, inDlq: 0 });
  }, 60_000);
});
