import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import { CLEANUP_METRICS, type CleanupReport, type OutboxCleanupReport } from '../inbox/cleanup/index.js';

/** A cleanup run: the inbox's, the kept messages', and the outbox's when the function cleans it too. */
export type CleanupRunReport = CleanupReport & { readonly kept?: CleanupReport; readonly outbox?: OutboxCleanupReport };

/**
 * Records one run and flushes it: `done` is 1 when nothing past the retention was left and 0
 * otherwise, a run that failed included, so that an alarm on `done` sees a backlog that lasts
 * whether the runs ran short of time or failed (the outbox's part included, when it has one).
 * `deleted` (and `outboxDeleted`) is published only for a run that returned: a failed run cannot
 * say how many of its batches committed.
 *
 * @example
 * ```ts
 * publishCleanupRun(metrics, await cleanupInbox(db, options)); // { deleted: 25, done: 1 }
 * ```
 */
export function publishCleanupRun(metrics: Metrics, report: CleanupRunReport | undefined): void {
  if (report !== undefined) metrics.addMetric(CLEANUP_METRICS.deleted, MetricUnit.Count, report.deleted);
  if (report?.outbox !== undefined) metrics.addMetric(CLEANUP_METRICS.outboxDeleted, MetricUnit.Count, report.outbox.deleted);
  metrics.addMetric(CLEANUP_METRICS.done, MetricUnit.Count, report?.done && (report.kept?.done ?? true) && (report.outbox?.done ?? true) ? 1 : 0);
  metrics.publishStoredMetrics();
}
