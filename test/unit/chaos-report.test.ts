import { describe, expect, it } from 'vitest';
import { checkChaos, type LaneEvidence } from '../../demo/chaos/chaos-check.js';
import { chaosPlan } from '../../demo/chaos/chaos-plan.js';
import { chaosReportLines } from '../../demo/chaos/chaos-report-lines.js';
import { chaosHtmlReport } from '../../demo/chaos/html-report.js';
import { noFaults } from '../../demo/chaos/lane.js';
import type { ChaosReport } from '../../demo/chaos/run-chaos.js';
import { Timeline } from '../../demo/chaos/timeline.js';
import { seededRandom } from '../../demo/seeded-random.js';
import { orderWorkload } from '../../demo/workload.js';

const plan = chaosPlan({ messages: 300, seed: 9, sendSeconds: 10, pauseSeconds: 2 });
const workload = orderWorkload({ orders: 3, poison: 0, stuck: 0, groups: 1, fifo: true, mode: 'statement', runId: 'r', random: seededRandom(2) });
const twice = workload.orders[1]!;

/** A run's report from evidence and a timeline made by hand: one order applied twice. */
function reportOf(timeline: Timeline): ChaosReport {
  const evidence: LaneEvidence = {
    lane: 'sqs-fifo', consumer: 'chaos-fifo', mode: 'statement', workload,
    effects: new Map(workload.orders.map((order) => [order.orderId, order === twice ? 2 : 1])),
    inbox: new Map(workload.orders.map((order) => [order.key, { status: 'processed', error: null }])),
    purged: new Map(), inboxRowCount: 3, parked: [], notSent: new Set(), sequences: new Map(), appliedAt: new Map(),
  };
  return {
    plan, verdict: checkChaos([evidence]), timeline, laneFaults: { 'sqs-fifo': noFaults() }, faults: 7,
    cleanup: { runs: 2, failed: 0, deleted: 0 }, redriven: 0, deliveriesAfterPurge: 0, redeliveriesAfterFirstPurge: 0,
    dataApiErrors: {}, drainedSeconds: 12.34, hop: undefined,
  };
}

describe('the chaos report', () => {
  it('names a broken message with its delivery history, and ends with the one line', () => {
    const timeline = new Timeline();
    timeline.delivered(twice.key, { atMs: 1200, lane: 'sqs-fifo', copy: 'm-1', receive: 1, outcome: 'failed' });
    timeline.delivered(twice.key, { atMs: 3400, lane: 'sqs-fifo', copy: 'm-1', receive: 2, outcome: 'acknowledged' });

    const lines = chaosReportLines(reportOf(timeline));

    expect(lines).toContain(`BROKEN: sqs-fifo ${twice.key}: double effect; deliveries: 1.2 s m-1 receive 1 failed; 3.4 s m-1 receive 2 acknowledged`);
    expect(lines.at(-1)).toBe('chaos: 3 messages, 7 faults, 1 double effects, 0 lost, 0 order breaks, drained in 12.3 s');
  });

  it('draws every fault of the plan on the timeline and lists it, as one page with nothing fetched', () => {
    const timeline = new Timeline();
    for (const fault of plan.timed) timeline.mark({ id: fault.id, kind: fault.kind, atMs: fault.atMs + 50, durationMs: fault.durationMs });
    timeline.mark({ id: 'crash-sqs-fifo-1', kind: 'crash', atMs: 900, durationMs: 0, detail: 'after-commit' });
    timeline.sample({ commits: 10, inFlight: 3, backlog: 40 });

    const html = chaosHtmlReport(reportOf(timeline));

    for (const fault of plan.timed) {
      expect(html).toContain(`<tr data-fault="${fault.id}"><td>${fault.id}</td><td>${(fault.atMs / 1000).toFixed(1)} s</td><td>${((fault.atMs + 50) / 1000).toFixed(1)} s for`);
      // A band on each of the five charts.
      expect(html.split(`<title>${fault.id} at`).length - 1).toBe(5);
    }
    expect(html).toContain('<title>crash-sqs-fifo-1 at 0.9 s: after-commit</title>');
    expect(html).not.toMatch(/<script|<link|src=/);
  });

  it('says a fault of the plan that never happened', () => {
    const html = chaosHtmlReport(reportOf(new Timeline()));

    expect(html).toContain(`<tr data-fault="${plan.timed[0]!.id}"><td>${plan.timed[0]!.id}</td><td>${(plan.timed[0]!.atMs / 1000).toFixed(1)} s</td><td>did not happen</td></tr>`);
  });
});
