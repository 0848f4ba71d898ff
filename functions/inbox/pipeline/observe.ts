import type { ResolvedOptions } from '../options.js';
import type { Outcome, OutcomeKind } from '../outcome.js';

type Level = 'debug' | 'info' | 'warn' | 'error';

const LOG_LEVEL: Record<OutcomeKind, Level> = {
  processed: 'info',
  duplicate: 'info',
  collision: 'error',
  rejected: 'warn',
  failed: 'warn',
  skipped: 'warn',
};

const LOG_MESSAGE: Record<OutcomeKind, string> = {
  processed: 'message processed',
  duplicate: 'duplicate message acknowledged without effect',
  collision: 'idempotency key reused with a different body: acknowledged without effect',
  rejected: 'message rejected: recorded and acknowledged, not retried',
  failed: 'message failed: reported for redelivery',
  skipped: 'message not attempted: reported for redelivery',
};

/** The metric that holds the processing latency of each attempted record. */
export const LATENCY_METRIC = 'processingLatency';

/**
 * Tells the user's hook, logger and metrics what became of a record. A throwing hook is logged and
 * ignored: observing must never change what is acknowledged.
 *
 * @example
 * ```ts
 * observe({ kind: 'processed', messageId, key, durationMs: 12 }, options);
 * ```
 */
export function observe(outcome: Outcome, options: Pick<ResolvedOptions<unknown, unknown>, 'onOutcome' | 'logger' | 'metrics'>): void {
  const { logger, metrics, onOutcome } = options;
  if (logger) {
    logger[LOG_LEVEL[outcome.kind]](LOG_MESSAGE[outcome.kind], {
      messageId: outcome.messageId,
      key: outcome.key,
      groupId: outcome.groupId,
      outcome: outcome.kind,
      durationMs: outcome.durationMs,
      ...(outcome.keyFallback !== undefined ? { keyFallback: outcome.keyFallback } : {}),
      ...(outcome.error !== undefined ? { error: outcome.error as Error } : {}),
    });
  }
  if (metrics) {
    metrics.addMetric(outcome.kind, 'Count', 1);
    if (outcome.kind !== 'skipped') metrics.addMetric(LATENCY_METRIC, 'Milliseconds', outcome.durationMs);
  }
  if (onOutcome) {
    try {
      onOutcome(outcome);
    } catch (error) {
      logger?.warn('onOutcome threw; the outcome stands', { messageId: outcome.messageId, error });
    }
  }
}
