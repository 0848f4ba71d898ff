import { describe, expect, it } from 'vitest';
import { chaosPlan } from '../../demo/chaos/chaos-plan.js';
import { chaosReportLines } from '../../demo/chaos/chaos-report-lines.js';
import { chaosHtmlReport } from '../../demo/chaos/html-report.js';
import { runChaos } from '../../demo/chaos/run-chaos.js';

describe('the chaos run (npm run chaos), small and with short fault windows', () => {
  it('ends with the one line of zeros, and its HTML report holds every fault of the plan where it happened', async () => {
    // A drain that stalls fails with what still held messages, well inside the test's own time.
    const options = { messages: 300, seed: 5, sendSeconds: 8, pauseSeconds: 2, cleanupEverySeconds: 2, poison: 4, stuck: 1, lostDeletes: 2, drainTimeoutSeconds: 90 };
    const plan = chaosPlan(options);

    const report = await runChaos(options);
    const lines = chaosReportLines(report);
    const html = chaosHtmlReport(report);

    expect(lines.at(-1)).toMatch(/^chaos: 300 messages, \d+ faults, 0 double effects, 0 lost, 0 order breaks, drained in \d+\.\d s$/);
    expect(report.verdict).toMatchObject({ ok: true, broken: [], sumBreaks: [] });
    expect(report.verdict.lanes.map((lane) => [lane.lane, lane.rejected, lane.inboxRowsMatch])).toEqual([['sqs-fifo', 4, true], ['sqs-standard', 4, true], ['kafka', 4, true]]);
    // Every fault of the plan happened, and the report marks it on the timeline and lists it.
    expect(report.timeline.marks.filter((mark) => plan.timed.some((fault) => fault.id === mark.id)).map((mark) => mark.id).sort())
      .toEqual(plan.timed.map((fault) => fault.id).sort());
    for (const fault of [...plan.timed.map((timed) => timed.id), 'dlq-redrive']) {
      expect(html).toContain(`<tr data-fault="${fault}">`);
      expect(html).toMatch(new RegExp(`<title>${fault} at \\d+\\.\\d s`));
    }
    expect(report.redriven).toBeGreaterThan(0);
    expect(report.cleanup.runs).toBeGreaterThan(0);
    expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
  }, 240_000);
});
