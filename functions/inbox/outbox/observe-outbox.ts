import { OUTBOX_METRICS } from '../contract.js';
import type { InboxLogger, InboxMetrics } from '../telemetry.js';
import type { OutboxDispatchReport } from './outbox-options.js';

/** Where the outbox tells what it did. */
export interface OutboxObservers<R> {
  readonly consumer: string;
  readonly logger: InboxLogger | undefined;
  readonly metrics: InboxMetrics | undefined;
  readonly onDispatch?: ((report: R) => void) | undefined;
}

// An observer that throws must not change what was sent or marked.
function quietly(logger: InboxLogger | undefined, observer: string, tell: () => void): void {
  try {
    tell();
  } catch (error) {
    if (observer === 'logger') return;
    try {
      logger?.warn(`${observer} threw; the outbox's work stands`, { error: error as Error });
    } catch {
      // A logger that throws has nothing more to say.
    }
  }
}

function count(metrics: InboxMetrics | undefined, name: string, value: number): void {
  if (value > 0) metrics?.addMetric(name, 'Count', value);
}

/**
 * Tells the hook, the logger and the metrics what the outbox did for a batch after its commits:
 * rows written, sent after the commit, failed, left for the relay.
 *
 * @example
 * ```ts
 * observeDispatch({ written: 3, sent: 3, failed: 0, left: 0, durationMs: 12 }, { consumer, logger, metrics, onDispatch });
 * ```
 */
export function observeDispatch(report: OutboxDispatchReport, observers: OutboxObservers<OutboxDispatchReport>): void {
  const { logger, metrics, onDispatch } = observers;
  quietly(logger, 'metrics', () => {
    count(metrics, OUTBOX_METRICS.written, report.written);
    count(metrics, OUTBOX_METRICS.sentAfterCommit, report.sent);
    count(metrics, OUTBOX_METRICS.failed, report.failed);
    count(metrics, OUTBOX_METRICS.left, report.left);
  });
  const level = report.failed > 0 ? 'error' : report.left > 0 ? 'warn' : 'info';
  quietly(logger, 'logger', () => logger?.[level]('outbox rows sent after the commit', { consumer: observers.consumer, ...report }));
  if (onDispatch) quietly(logger, 'onDispatch', () => onDispatch(report));
}

/** What a relay run did, as `relayOutbox` answers it. */
export interface RelayCounts {
  readonly sent: number;
  readonly failed: number;
  readonly left: number;
  readonly oldestUndispatchedAgeMs: number;
  readonly ended: 'caughtUp' | 'deadline' | 'noTime';
}

/**
 * Tells the logger and the metrics what a relay run did, and the age of the oldest row it left.
 *
 * @example
 * ```ts
 * observeRelay({ sent: 10, failed: 0, left: 0, oldestUndispatchedAgeMs: 0, ended: 'caughtUp' }, { consumer, logger, metrics });
 * ```
 */
export function observeRelay(report: RelayCounts, observers: OutboxObservers<never>): void {
  const { logger, metrics } = observers;
  quietly(logger, 'metrics', () => {
    count(metrics, OUTBOX_METRICS.sentByRelay, report.sent);
    count(metrics, OUTBOX_METRICS.failed, report.failed);
    count(metrics, OUTBOX_METRICS.left, report.left);
    metrics?.addMetric(OUTBOX_METRICS.oldestUndispatchedAge, 'Milliseconds', report.oldestUndispatchedAgeMs);
  });
  // A run that began under its margin did nothing, every time: a warning, so it is not taken for "all sent".
  const level = report.failed > 0 ? 'error' : report.ended === 'noTime' ? 'warn' : 'info';
  const line = report.ended === 'noTime'
    ? 'outbox relay run sent nothing: less time was left than its marginMs; give its function a longer timeout or a smaller marginMs'
    : 'outbox relay run';
  quietly(logger, 'logger', () => logger?.[level](line, { consumer: observers.consumer, ...report }));
}
