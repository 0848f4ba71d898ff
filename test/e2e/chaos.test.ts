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
    expect(report.verdict.lanes.map((lane) => [lane.lane, lane.rejected, lane.keptRejected, lane.inboxRowsMatch])).toEqual([['sqs-fifo', 4, 4, true], ['sqs-standard', 4, 4, true], ['kafka', 4, 4, true]]);
    // Every fault of the plan happened, and the report marks it on the timeline and lists it.
    expect(report.timeline.marks.filter((mark) => plan.timed.some((fault) => fault.id === mark.id)).map((mark) => mark.id).sort())
      .toEqual(plan.timed.map((fault) => fault.id).sort());
    for (const fault of [...plan.timed.map((timed) => timed.id), 'dlq-redrive']) {
      expect(html).toContain(`<tr data-fault="${fault}">`);
      expect(html).toMatch(new RegExp(`<title>${fault} at \\d+\\.\\d s`));
    }
    // The second hop: the FIFO lane's shipments went on through its outbox, each to one notice, under its own faults.
    const fifoApplied = report.verdict.lanes[0]!.applied;
    expect(report.verdict.downstream).toMatchObject({ lane: 'shipment-notices', notices: fifoApplied, notDispatched: 0, doubleEffects: 0, lost: 0, orderBreaks: 0 });
    expect(report.hop!.sentAfterCommit + report.hop!.sentByRelay).toBe(fifoApplied);
    expect(report.hop!.relay.runs).toBeGreaterThan(0);
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^shipment-notices ${fifoApplied} notices written \\(\\d+ outbox rows sent after the commit, \\d+ by the relay\\), \\d+ in the notice DLQ, `
      + '0 outbox rows not dispatched; 0 double effects, 0 lost, 0 order breaks downstream$')));
    expect(lines).toContainEqual(expect.stringMatching(/^ +faults: \d+ send crashes after the commit and before the send, \d+ after the send and before the mark, \d+ lost send answers/));
    expect(html).toContain('<h3>second hop: shipment-notices deliveries per second</h3>');
    expect(html).toContain('<tr data-hop-fault="lost send answer">');
    expect(report.redriven).toBeGreaterThan(0);
    expect(report.cleanup.runs).toBeGreaterThan(0);
    expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
  }, 240_000);

  it('runs without the second hop with outbox: false', async () => {
    const report = await runChaos({ messages: 120, seed: 6, sendSeconds: 5, pauseSeconds: 1, poison: 1, stuck: 0, lostDeletes: 0, outbox: false });

    expect(chaosReportLines(report).at(-1)).toMatch(/^chaos: 120 messages, \d+ faults, 0 double effects, 0 lost, 0 order breaks, drained in \d+\.\d s$/);
    expect(report).toMatchObject({ hop: undefined, verdict: { ok: true, downstream: undefined } });
  }, 240_000);
});
