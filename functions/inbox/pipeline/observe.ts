import { INBOX_METRICS } from '../contract.js';
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


// Consumers already warned in this process: the redrive warning is said once per cold start.
const warnedOfFallback = new Set<string>();

function warnOfFallback(outcome: Outcome, consumer: string, logger: ResolvedOptions<unknown, unknown>['logger']): void {
  if (warnedOfFallback.has(consumer)) return;
  warnedOfFallback.add(consumer);
  const text = `consumer ${consumer}: messages are keyed by their ${outcome.keyFallback}, which a DLQ redrive replaces, so a redriven copy would be applied again. `
    + 'Send an idempotency-key message attribute (sendMessages does), give a key function, or set requireKeyAttribute to reject such messages.';
  // Without a logger the kit is otherwise silent; this one line is written anyway, once.
  if (logger) logger.warn(text, { consumer, keyFallback: outcome.keyFallback, messageId: outcome.messageId });
  else console.warn(text);
}

/**
 * Says, through the consumer's logger (or the console when it has none), that the handler of a
 * message issued a query after its transaction had ended: the query was refused and did not run,
 * so its effect is missing from a message already settled. Said every time, naming the message;
 * a logger that throws is ignored.
 *
 * @example
 * ```ts
 * reportLateQuery(prepared.messageId, key, options);
 * ```
 */
export function reportLateQuery(messageId: string, key: string, options: Pick<ResolvedOptions<unknown, unknown>, 'consumer' | 'logger'>): void {
  const text = `consumer ${options.consumer}, message ${messageId} (key ${key}): a tx.query came after its transaction had ended, so it was refused and did not run. `
    + 'The handler issued it from a timer or an un-awaited chain; await every query inside handle.';
  try {
    if (options.logger) options.logger.error(text, { consumer: options.consumer, messageId, key });
    else console.error(text);
  } catch {
    // A logger that throws has nothing more to say.
  }
}

// Each observer on its own: one that throws must neither stop the others nor fail the batch.
function quietly(observer: string, outcome: Outcome, logger: ResolvedOptions<unknown, unknown>['logger'], tell: () => void): void {
  try {
    tell();
  } catch (error) {
    if (observer === 'logger') return;
    try {
      logger?.warn(`${observer} threw; the outcome stands`, { messageId: outcome.messageId, error });
    } catch {
      // A logger that throws has nothing more to say.
    }
  }
}

/**
 * Says, through the consumer's logger (or the console when it has none), once for the batch, that
 * the inbox table is missing and how to make it (the error's message); every record of the batch is
 * reported failed. A logger that throws is ignored.
 *
 * @example
 * ```ts
 * reportMissingTable(new InboxTableMissingError(cause), options);
 * ```
 */
export function reportMissingTable(error: Error, options: Pick<ResolvedOptions<unknown, unknown>, 'consumer' | 'logger'>): void {
  const text = `consumer ${options.consumer}: ${error.message}`;
  try {
    if (options.logger) options.logger.error(text, { consumer: options.consumer, error });
    else console.error(text);
  } catch {
    // A logger that throws has nothing more to say.
  }
}

/**
 * Tells the user's hook, logger and metrics what became of a record. A throwing hook or metrics
 * object is logged and ignored, a throwing logger ignored: observing must never change what is
 * acknowledged. A record keyed by a fallback a redrive
 * changes is counted as `keyFallback`, and said once per process and consumer. The log line carries
 * the message span's `traceId` when one is traced, so logs and traces meet.
 *
 * @example
 * ```ts
 * observe({ kind: 'processed', messageId, key, durationMs: 12 }, options);
 * ```
 */
export function observe(outcome: Outcome, options: Pick<ResolvedOptions<unknown, unknown>, 'consumer' | 'onOutcome' | 'logger' | 'metrics'>, traceId?: string): void {
  const { logger, metrics, onOutcome } = options;
  if (outcome.keyFallback !== undefined) {
    quietly('logger', outcome, logger, () => warnOfFallback(outcome, options.consumer, logger));
    quietly('metrics', outcome, logger, () => metrics?.addMetric(INBOX_METRICS.keyFallback, 'Count', 1));
  }
  if (logger) {
    quietly('logger', outcome, logger, () => logger[LOG_LEVEL[outcome.kind]](LOG_MESSAGE[outcome.kind], {
      messageId: outcome.messageId,
      key: outcome.key,
      lane: outcome.lane,
      outcome: outcome.kind,
      durationMs: outcome.durationMs,
      ...(outcome.keyFallback !== undefined ? { keyFallback: outcome.keyFallback } : {}),
      ...(traceId !== undefined ? { traceId } : {}),
      ...(outcome.error !== undefined ? { error: outcome.error as Error } : {}),
    }));
  }
  if (metrics) {
    quietly('metrics', outcome, logger, () => {
      metrics.addMetric(outcome.kind, 'Count', 1);
      if (outcome.kind !== 'skipped') metrics.addMetric(INBOX_METRICS.processingLatency, 'Milliseconds', outcome.durationMs);
    });
  }
  if (onOutcome) quietly('onOutcome', outcome, logger, () => onOutcome(outcome));
}
