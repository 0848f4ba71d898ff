import type { KafkaMainJobReport } from './kafka-main-job.js';
import { formatDataApiStats, type MainJobReport } from './main-job.js';
import { NOTICE_QUEUE_NAME, type OutboxHopReport } from './outbox-hop.js';

/** A labelled figure of a report, as `npm start` prints it. */
export type ReportLine = readonly [label: string, value: number | string];

const reasonsOf = (reasons: Readonly<Record<string, number>>) => Object.entries(reasons).map(([reason, count]) => `${count} ${reason}`).join(', ') || 'none';

/**
 * The SQS main job's report, a line a figure, the three that must be 0 last but for the timings.
 *
 * @example
 * ```ts
 * for (const [label, value] of sqsReportLines(report)) console.log(`${label.padEnd(30)} ${value}`);
 * ```
 */
export function sqsReportLines(report: MainJobReport): ReportLine[] {
  return [
    ['queue', `${report.queue}, ${report.mode} mode, ${report.driver} driver`],
    ['unique orders', report.orders],
    ['messages sent', `${report.sent} (${report.orders} orders, ${report.sent - report.orders} poison)`],
    ['producer retries', `${report.producerRetries.lostAnswers} batches whose answer was lost, ${report.producerRetries.failedEntries} failed entries`],
    ['messages SQS held', `${report.stored}${report.queue === 'fifo' ? ' (FIFO dropped the retried copies)' : ' (retried copies included)'}${report.redriven > 0 ? `, ${report.redriven} redriven under new messageIds` : ''}`],
    ['deliveries', `${report.deliveries} in ${report.invocations} invocations`],
    ['crashes before commit', report.crashes.beforeCommit],
    ['crashes after commit', report.crashes.afterCommit],
    ['copies delivered at once', report.deliveredTwice],
    ['failed deliveries', reasonsOf(report.failureReasons)],
    ...(report.lostDeletes > 0 ? [['orders whose deletes were lost', report.lostDeletes] as const] : []),
    ...(report.redriven > 0 ? [['redriven from the DLQ', `${report.redriven} (new messageIds; keyed by their idempotency-key attribute)`] as const] : []),
    ['orders applied', report.applied],
    ['duplicates suppressed', report.duplicatesSuppressed],
    ['rejected (poison)', report.rejected],
    ['rejected records kept', report.keptRejected],
    ['in the DLQ', `${report.inDlq} (${report.stuckInDlq} locked by a stuck session, ${report.inDlq - report.stuckInDlq} failed ${report.maxReceiveCount} receives)`],
    ['not sent (producer gave up)', report.notSent],
    ['double effects (must be 0)', report.doubleEffects],
    ['unclaimed effects (must be 0)', report.unclaimedEffects],
    ['lost (must be 0)', report.lost],
    ['rejected, body not kept (must be 0)', report.rejectedUnkept],
    ...(report.outbox === undefined ? [] : outboxReportLines(report.outbox)),
    ['Data API emulator', formatDataApiStats(report.dataApi)],
    ['seconds', report.seconds.toFixed(1)],
  ];
}

/**
 * The second hop's lines of the SQS main job's report (`--outbox`), the five that must be 0 last.
 *
 * @example
 * ```ts
 * const lines = report.outbox === undefined ? [] : outboxReportLines(report.outbox);
 * ```
 */
export function outboxReportLines(hop: OutboxHopReport): ReportLine[] {
  return [
    ['second hop', `OrderShipped by the outbox to ${NOTICE_QUEUE_NAME}, the shipment-notice worker ${hop.unguardedNotices ? 'WITHOUT its inbox' : 'behind its inbox'}`],
    ['send crashes', `${hop.faults.sendCrashes.beforeSend} after the commit and before the send, ${hop.faults.sendCrashes.afterSend} after the send and before the mark`],
    ['lost send answers', `${hop.faults.lostSendAnswers} (SQS took the batch, the answer was lost), ${hop.faults.failedSendEntries} failed entries`],
    ['groups written by two at once', `${hop.faults.lapses.overlapped} invocations ran past their visibility timeout while a second ran their FIFO groups (${hop.faults.lapses.stalled} stalled)`],
    ['relay runs', `${hop.relay.runs} (${hop.relay.twiceAtOnce} firings started two at once, ${hop.relay.crashes} died in a send)${Object.keys(hop.relay.errors).length > 0 ? `, errors: ${reasonsOf(hop.relay.errors)}` : ''}`],
    ['sent after commit', hop.sentAfterCommit],
    ['sent by the relay', hop.sentByRelay],
    ['notice copies sent again', `${hop.resentCopies} (past the ${hop.deduplicationWindowMs} ms deduplication window)`],
    ['notice deliveries', `${hop.noticeDeliveries} in ${hop.noticeInvocations} invocations`],
    ['notice crashes', `${hop.noticeCrashes.beforeCommit} before commit, ${hop.noticeCrashes.afterCommit} after commit`],
    ['failed notice deliveries', reasonsOf(hop.noticeFailureReasons)],
    ['notices written', hop.notices],
    ['in the notice DLQ', hop.inDlq],
    ['outbox rows not dispatched (must be 0)', hop.notDispatched],
    ['double effects downstream (must be 0)', hop.doubleEffects],
    ['lost downstream (must be 0)', hop.lost],
    ['order breaks downstream (must be 0)', hop.orderBreaks],
    ['phantom notices downstream (must be 0)', hop.phantom],
    ...(hop.brokenTraces === undefined ? [] : [['broken traces: shipped orders whose notice left their trace (must be 0)', hop.brokenTraces] as ReportLine]),
  ];
}

/**
 * The Kafka main job's report, a line a figure.
 *
 * @example
 * ```ts
 * for (const [label, value] of kafkaReportLines(report)) console.log(`${label.padEnd(30)} ${value}`);
 * ```
 */
export function kafkaReportLines(report: KafkaMainJobReport): ReportLine[] {
  return [
    ['source', `Kafka, ${report.partitions} partitions, ${report.mode} mode, data-api driver`],
    ['unique orders', report.orders],
    ['records produced', `${report.sent} (${report.orders} orders, ${report.sent - report.orders} poison)`],
    ['producer retries', `${report.lostAcks} acknowledgements lost, each record sent again`],
    ['records the log held', `${report.stored} (retried copies included)`],
    ['deliveries', `${report.deliveries} in ${report.invocations} invocations`],
    ['crashes before commit', report.crashes.beforeCommit],
    ['crashes after commit', report.crashes.afterCommit],
    ['batches delivered twice', report.deliveredTwice],
    ['failed deliveries', reasonsOf(report.failureReasons)],
    ['orders applied', report.applied],
    ['duplicates suppressed', report.duplicatesSuppressed],
    ['rejected (poison)', report.rejected],
    ['rejected records kept', report.keptRejected],
    ['on-failure destination', `${report.inDlq} (${report.stuckInDlq} locked by a stuck session)`],
    ['not sent (producer gave up)', report.notSent],
    ['double effects (must be 0)', report.doubleEffects],
    ['unclaimed effects (must be 0)', report.unclaimedEffects],
    ['lost (must be 0)', report.lost],
    ['rejected, body not kept (must be 0)', report.rejectedUnkept],
    ['order breaks per partition (must be 0)', report.orderBreaks],
    ['Data API emulator', formatDataApiStats(report.dataApi)],
    ['seconds', report.seconds.toFixed(1)],
  ];
}
