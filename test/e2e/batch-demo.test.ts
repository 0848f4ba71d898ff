import { describe, expect, it } from 'vitest';
import { runBatchDemo } from '../../local/demo/batch-demo.js';

describe('the npm start demo', () => {
  it('ships every unique order exactly once under crashes before and after commit, producer retries and poison', async () => {
    const report = await runBatchDemo({ orders: 300, faultRate: 0.1, producerRetryRate: 0.2, poison: 6, seed: 7, invocations: 3, maxReceiveCount: 5 });

    expect(report.faults.afterCommit).toBeGreaterThan(0);
    expect(report.faults.beforeCommit).toBeGreaterThan(0);
    expect(report.doubleEffects).toBe(0);
    expect(report.lost).toBe(0);
    expect(report.applied + report.inDlq).toBe(300);
    expect(report.rejected).toBe(6);
    expect(report.duplicatesSuppressed).toBeGreaterThan(0);
  }, 60_000);
});
