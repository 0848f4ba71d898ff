import type { ChaosReport } from './run-chaos.js';

/** The second hop's two lines, as the lanes have theirs: what the check found, then the faults. */
function hopLines(hop: NonNullable<ChaosReport['hop']>, lane: string): string[] {
  const { sendCrashes } = hop.faults;
  return [
    `${lane.padEnd(13)} ${hop.notices} notices written (${hop.sentAfterCommit} outbox rows sent after the commit, ${hop.sentByRelay} by the relay), ${hop.inDlq} in the notice DLQ, `
      + `${hop.notDispatched} outbox rows not dispatched; ${hop.doubleEffects} double effects, ${hop.lost} lost, ${hop.orderBreaks} order breaks downstream`,
    `${''.padEnd(13)} faults: ${sendCrashes.beforeSend} send crashes after the commit and before the send, ${sendCrashes.afterSend} after the send and before the mark, `
      + `${hop.faults.lapses.overlapped} FIFO lane invocations past their visibility timeout beside a second one (${hop.faults.lapses.stalled} stalled), `
      + `${hop.faults.lostSendAnswers} lost send answers, ${hop.faults.failedSendEntries} failed entries, ${hop.relay.crashes} relay crashes (${hop.relay.runs} relay runs, `
      + `${hop.relay.twiceAtOnce} firings started two at once; errors: ${counts(hop.relay.errors)}), ${hop.noticeCrashes.beforeCommit} notice crashes before commit, `
      + `${hop.noticeCrashes.afterCommit} after, ${hop.noticeTwins} twin deliveries; ${hop.resentCopies} notices sent again past the ${hop.deduplicationWindowMs} ms deduplication window`,
  ];
}

const counts = (record: Readonly<Record<string, number>>) => Object.entries(record).map(([name, count]) => `${count} ${name}`).join(', ') || 'none';

/**
 * The chaos run's report as `npm run chaos` prints it: per lane (and for the second hop) what the check found, the faults,
 * the cleanup and the retention rule, the first broken messages with their delivery history, and
 * last the one line: `chaos: <N> messages, <F> faults, 0 double effects, 0 lost, 0 order breaks, drained in <s> s`.
 *
 * @example
 * ```ts
 * for (const line of chaosReportLines(report)) console.log(line);
 * ```
 */
export function chaosReportLines(report: ChaosReport): string[] {
  const { verdict, plan } = report;
  const lines: string[] = [];
  for (const lane of verdict.lanes) {
    const faults = report.laneFaults[lane.lane]!;
    lines.push(`${lane.lane.padEnd(13)} ${lane.messages} messages: ${lane.applied} applied once, ${lane.rejected} rejected with their reason (${lane.keptRejected} kept), ${lane.inDlq} in the DLQ (${counts(lane.dlqReasons)}), `
      + `${lane.notSent} not sent; inbox rows ${lane.inboxRowsMatch ? '=' : '!='} applied + rejected (${lane.purged} of them purged)`
      + `${lane.ledgerEqual === undefined ? '' : `; ledger sums ${lane.ledgerEqual ? 'equal' : 'DIFFER'}`}; ${lane.doubleEffects} double effects, ${lane.lost} lost, ${lane.orderBreaks} order breaks`);
    lines.push(`${''.padEnd(13)} faults: ${faults.crashesBeforeCommit} crashes before commit, ${faults.crashesAfterCommit} after, ${faults.twins} twin deliveries, ${faults.lostDeletes} lost deletes, `
      + `${faults.lostProducerAnswers} lost batch answers to the producer, ${faults.failedEntries} failed entries, ${faults.lostAcks} lost acks, ${faults.lostBatchAnswers} lost batch answers to the poller`);
  }
  if (report.hop !== undefined) lines.push(...hopLines(report.hop, verdict.downstream?.lane ?? 'second hop'));
  for (const mark of report.timeline.marks.filter((entry) => plan.timed.some((fault) => fault.id === entry.id) || entry.kind === 'redrive')) {
    lines.push(`${mark.id.padEnd(20)} at ${(mark.atMs / 1000).toFixed(1)} s for ${(mark.durationMs / 1000).toFixed(1)} s${mark.detail === undefined ? '' : ` (${mark.detail})`}`);
  }
  lines.push(`cleanup              ${report.cleanup.runs} runs every ${plan.settings.cleanupEverySeconds} s (${report.cleanup.failed} failed with the database away), ${report.cleanup.deleted} inbox rows purged at ${plan.settings.retentionSeconds} s retention`);
  lines.push(`retention rule       ${plan.settings.retentionSeconds} s >= queue ${plan.queueRetentionSeconds} s + DLQ ${plan.deadLetterRetentionSeconds} s: `
    + `${report.redeliveriesAfterFirstPurge} redeliveries came after the first purge, ${report.deliveriesAfterPurge} of them for a key whose row was purged`);
  lines.push(`Data API errors      ${counts(report.dataApiErrors)}${plan.settings.driver === 'pg' ? ' (the workers are on pg: the pauses reach the cleanup and the migrations only)' : ''}`);
  for (const sumBreak of verdict.sumBreaks) lines.push(`BROKEN: ${sumBreak}`);
  const history = (key: string) => report.timeline.deliveriesOf(key)
    .map((delivery) => `${(delivery.atMs / 1000).toFixed(1)} s ${delivery.copy} receive ${delivery.receive} ${delivery.outcome}`).join('; ') || 'none';
  for (const broken of verdict.broken.slice(0, 5)) {
    // An order break names the key before it in its group or partition whose effect came later, and that key's deliveries.
    const order = broken.order === undefined ? ''
      : ` (in ${broken.order.sequence} after ${broken.order.earlier}, whose effect was written ${broken.order.earlierAt - broken.order.at} µs later; its deliveries: ${history(broken.order.earlier)})`;
    lines.push(`BROKEN: ${broken.lane} ${broken.key}: ${broken.problem}${order}; deliveries: ${history(broken.key)}`);
  }
  const messages = verdict.lanes.reduce((total, lane) => total + lane.messages, 0);
  lines.push(`chaos: ${messages} messages, ${report.faults} faults, ${verdict.doubleEffects} double effects, ${verdict.lost} lost, ${verdict.orderBreaks} order breaks, drained in ${report.drainedSeconds.toFixed(1)} s`);
  return lines;
}
