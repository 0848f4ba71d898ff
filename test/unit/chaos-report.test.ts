import { describe, expect, it } from 'vitest';
import { checkChaos, type LaneEvidence } from '../../demo/chaos/chaos-check.js';
import { chaosPlan } from '../../demo/chaos/chaos-plan.js';
import { chaosReportLines } from '../../demo/chaos/chaos-report-lines.js';
import { chaosHtmlReport } from '../../demo/chaos/html-report.js';
import { noFaults } from '../../demo/chaos/lane.js';
import type { ChaosReport } from '../../demo/chaos/run-chaos.js';
import { Timeline } from '../../demo/chaos/timeline.js';
import { settleDownstream } from '../../demo/downstream-accounts.js';
import { seededRandom } from '../../demo/seeded-random.js';
import { orderWorkload } from '../../demo/workload.js';

const plan = chaosPlan({ messages: 300, seed: 9, sendSeconds: 10, pauseSeconds: 2 });
const workload = orderWorkload({ orders: 3, poison: 0, stuck: 0, groups: 1, fifo: true, mode: 'statement', runId: 'r', random: seededRandom(2) });
const twice = workload.orders[1]!;

/** A run's report from evidence and a timeline made by hand: one order applied twice. */
const laneEvidence = (): LaneEvidence => ({
  lane: 'sqs-fifo', consumer: 'chaos-fifo', mode: 'statement', workload,
  effects: new Map(workload.orders.map((order) => [order.orderId, order === twice ? 2 : 1])),
  inbox: new Map(workload.orders.map((order) => [order.key, { status: 'processed', error: null }])),
  purged: new Map(), inboxRowCount: 3, kept: new Set(), parked: [], notSent: new Set(), reached: new Set(), sequences: new Map(), appliedAt: new Map(),
});

function reportOf(timeline: Timeline): ChaosReport {
  return {
    plan, verdict: checkChaos([laneEvidence()]), timeline, laneFaults: { 'sqs-fifo': noFaults() }, faults: 7,
    cleanup: { runs: 2, failed: 0, deleted: 0 }, redriven: 0, deliveriesAfterPurge: 0, redeliveriesAfterFirstPurge: 0,
    dataApiErrors: {}, drainedSeconds: 12.34, hop: undefined,
  };
}

/** The same run with a second hop whose first order got two notices. */
function reportWithHop(): ChaosReport {
  const base = reportOf(new Timeline());
  const [first, second] = [workload.orders[0]!, workload.orders[2]!];
  const accounts = settleDownstream({
    shipped: [first.orderId, second.orderId],
    rows: [first, second].map((order, index) => ({ id: `row-${index}`, orderId: order.orderId, groupId: 'g', groupSeq: index + 1, dispatched: true, byRelay: index === 1 })),
    notices: [first, first, second].map((order, index) => ({ orderId: order.orderId, key: `row-${index === 2 ? 1 : 0}`, groupId: 'g' })),
    parked: [],
  });
  return {
    ...base,
    faults: 9,
    verdict: checkChaos([laneEvidence()], { ...accounts, lane: 'shipment-notices' }),
    hop: {
      ...accounts, unguardedNotices: false, deduplicationWindowMs: 2500, relay: { runs: 40, twiceAtOnce: 6, crashes: 2, errors: {} },
      faults: { sendCrashes: { beforeSend: 1, afterSend: 2 }, lostSendAnswers: 3, failedSendEntries: 4, lapses: { stalled: 9, overlapped: 8 } }, noticeCrashes: { beforeCommit: 5, afterCommit: 6 },
      noticeDeliveries: 12, noticeInvocations: 8, resentCopies: 1, noticeFailureReasons: {}, noticeTwins: 7,
    },
  };
}

describe('the chaos report', () => {
  it('with the second hop, gives its two lines and counts its double effects in the one line', () => {
    const lines = chaosReportLines(reportWithHop());

    expect(lines).toContain('shipment-notices 3 notices written (1 outbox rows sent after the commit, 1 by the relay), 0 in the notice DLQ, 0 outbox rows not dispatched; '
      + '1 double effects, 0 lost, 0 order breaks downstream');
    expect(lines).toContain(`${''.padEnd(13)} faults: 1 send crashes after the commit and before the send, 2 after the send and before the mark, `
      + '8 FIFO lane invocations past their visibility timeout beside a second one (9 stalled), 3 lost send answers, 4 failed entries, '
      + '2 relay crashes (40 relay runs, 6 firings started two at once; errors: none), 5 notice crashes before commit, 6 after, 7 twin deliveries; 1 notices sent again past the 2500 ms deduplication window');
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^BROKEN: shipment-notices ${workload.orders[0]!.key}: double effect downstream`)));
    expect(lines.at(-1)).toBe('chaos: 3 messages, 9 faults, 2 double effects, 0 lost, 0 order breaks, drained in 12.3 s');
  });

  it('with the second hop, charts its deliveries and notices written and lists its faults', () => {
    const html = chaosHtmlReport(reportWithHop());

    expect(html).toContain('<h3>second hop: shipment-notices deliveries per second</h3>');
    expect(html).toContain('<h3>second hop: shipment notices written per second</h3>');
    expect(html).toContain('<tr data-hop-fault="send crash after the send, before the mark"><td>send crash after the send, before the mark</td><td>2</td></tr>');
    expect(html).toContain('<tr data-hop-fault="notice twin delivery"><td>notice twin delivery</td><td>7</td></tr>');
    expect(html).toContain('<tr data-hop-fault="invocation past its visibility timeout beside a second one"><td>invocation past its visibility timeout beside a second one</td><td>8</td></tr>');
  });

  it('names a broken message with its delivery history, and ends with the one line', () => {
    const timeline = new Timeline();
    timeline.delivered(twice.key, { atMs: 1200, lane: 'sqs-fifo', copy: 'm-1', receive: 1, outcome: 'failed' });
    timeline.delivered(twice.key, { atMs: 3400, lane: 'sqs-fifo', copy: 'm-1', receive: 2, outcome: 'acknowledged' });

    const lines = chaosReportLines(reportOf(timeline));

    expect(lines).toContain(`BROKEN: sqs-fifo ${twice.key}: double effect; deliveries: 1.2 s m-1 receive 1 failed; 3.4 s m-1 receive 2 acknowledged`);
    expect(lines.at(-1)).toBe('chaos: 3 messages, 7 faults, 1 double effects, 0 lost, 0 order breaks, drained in 12.3 s');
  });

  it('names an order break with its group, the earlier key whose effect came later, and both keys\' deliveries', () => {
    const [first, second, third] = workload.orders.map((order) => order.key) as [string, string, string];
    const timeline = new Timeline();
    timeline.delivered(second, { atMs: 1200, lane: 'sqs-fifo', copy: 'm-1', receive: 1, outcome: 'acknowledged' });
    timeline.delivered(third, { atMs: 1100, lane: 'sqs-fifo', copy: 'm-1', receive: 1, outcome: 'acknowledged' });
    const evidence: LaneEvidence = {
      ...laneEvidence(), effects: new Map(workload.orders.map((order) => [order.orderId, 1])),
      sequences: new Map([['customer-0', [first, second, third]]]), appliedAt: new Map([[first, 10n], [second, 250n], [third, 40n]]),
    };

    const lines = chaosReportLines({ ...reportOf(timeline), verdict: checkChaos([evidence]) });

    expect(lines).toContain(`BROKEN: sqs-fifo ${third}: order break (in customer-0 after ${second}, whose effect was written 210 µs later; `
      + 'its deliveries: 1.2 s m-1 receive 1 acknowledged); deliveries: 1.1 s m-1 receive 1 acknowledged');
    expect(lines.at(-1)).toBe('chaos: 3 messages, 7 faults, 0 double effects, 0 lost, 1 order breaks, drained in 12.3 s');
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
