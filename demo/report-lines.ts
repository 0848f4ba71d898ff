import type { KafkaMainJobReport } from './kafka-main-job.js';
import { formatDataApiStats, type MainJobReport } from './main-job.js';

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
    ['in the DLQ', `${report.inDlq} (${report.stuckInDlq} locked by a stuck session, ${report.inDlq - report.stuckInDlq} failed ${report.maxReceiveCount} receives)`],
    ['not sent (producer gave up)', report.notSent],
    ['double effects (must be 0)', report.doubleEffects],
    ['unclaimed effects (must be 0)', report.unclaimedEffects],
    ['lost (must be 0)', report.lost],
    ['Data API emulator', formatDataApiStats(report.dataApi)],
    ['seconds', report.seconds.toFixed(1)],
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
    ['on-failure destination', `${report.inDlq} (${report.stuckInDlq} locked by a stuck session)`],
    ['not sent (producer gave up)', report.notSent],
    ['double effects (must be 0)', report.doubleEffects],
    ['unclaimed effects (must be 0)', report.unclaimedEffects],
    ['lost (must be 0)', report.lost],
    ['order breaks per partition (must be 0)', report.orderBreaks],
    ['Data API emulator', formatDataApiStats(report.dataApi)],
    ['seconds', report.seconds.toFixed(1)],
  ];
}
