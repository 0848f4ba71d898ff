import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { INBOX_METRICS, METRICS_SCHEMA, OutcomeKind } from '../../functions/inbox/contract.js';

/**
 * The outcomes the runtime counts, one EMF metric (unit Count) each.
 *
 * @example
 * ```ts
 * for (const outcome of INBOX_OUTCOMES) graph.addLeftMetric(consumer.metricOutcome(outcome));
 * ```
 */
export const INBOX_OUTCOMES = Object.values(OutcomeKind);

/** One of the outcomes the runtime counts. */
export type InboxOutcome = OutcomeKind;

/** Where a consumer's metrics live: Powertools puts them in its namespace with a `service` dimension. */
export interface OutcomeMetricSource {
  readonly namespace: string;
  readonly serviceName: string;
}

/**
 * A count the runtime publishes for a consumer (an outcome, `keyFallback`), summed over `period`.
 *
 * @example
 * ```ts
 * inboxMetric({ namespace: 'SqsInbox', serviceName: 'order-worker' }, INBOX_METRICS.keyFallback).createAlarm(this, 'KeyFallback', { threshold: 1, evaluationPeriods: 1 });
 * ```
 */
export function inboxMetric(source: OutcomeMetricSource, metricName: string, period = Duration.minutes(5)): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: source.namespace,
    metricName,
    dimensionsMap: { [METRICS_SCHEMA.dimension]: source.serviceName },
    statistic: cloudwatch.Stats.SUM,
    unit: cloudwatch.Unit.COUNT,
    period,
  });
}

/**
 * A consumer's count of one outcome, summed over `period`.
 *
 * @example
 * ```ts
 * outcomeMetric({ namespace: 'SqsInbox', serviceName: 'order-worker' }, 'collision').createAlarm(this, 'Collisions', { threshold: 1, evaluationPeriods: 1 });
 * ```
 */
export function outcomeMetric(source: OutcomeMetricSource, outcome: InboxOutcome, period = Duration.minutes(5)): cloudwatch.Metric {
  return inboxMetric(source, outcome, period);
}

/**
 * A consumer's processing latency per record at `statistic` (p50, p99, ...).
 *
 * @example
 * ```ts
 * graph.addLeftMetric(processingLatencyMetric(source, cloudwatch.Stats.p(99)));
 * ```
 */
export function processingLatencyMetric(source: OutcomeMetricSource, statistic: string, period = Duration.minutes(5)): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: source.namespace,
    metricName: INBOX_METRICS.processingLatency,
    dimensionsMap: { [METRICS_SCHEMA.dimension]: source.serviceName },
    statistic,
    unit: cloudwatch.Unit.MILLISECONDS,
    period,
  });
}

/** One outcome count over the sum of others, a period without records having no value (0 / 0). */
function outcomeShare(source: OutcomeMetricSource, share: InboxOutcome, of: readonly InboxOutcome[], label: string, period: Duration): cloudwatch.MathExpression {
  return new cloudwatch.MathExpression({
    expression: `FILL(${share}, 0) / (${of.map((outcome) => `FILL(${outcome}, 0)`).join(' + ')})`,
    usingMetrics: Object.fromEntries([share, ...of].map((outcome) => [outcome, outcomeMetric(source, outcome, period)])),
    label,
    period,
  });
}

/**
 * Duplicates as a share of processed plus duplicate messages. A period with no messages has no
 * value (0 / 0), so the alarm on it treats missing data as fine.
 *
 * @example
 * ```ts
 * duplicateRateMetric(source).createAlarm(this, 'DuplicateRate', { threshold: 0.1, evaluationPeriods: 3 });
 * ```
 */
export function duplicateRateMetric(source: OutcomeMetricSource, period = Duration.minutes(5)): cloudwatch.MathExpression {
  return outcomeShare(source, 'duplicate', ['processed', 'duplicate'], 'duplicate rate', period);
}

/**
 * Failed messages as a share of processed, duplicate and failed ones (skipped FIFO followers are
 * left out: they follow a failure already counted). A period with no messages has no value.
 *
 * @example
 * ```ts
 * failedRateMetric(source).createAlarm(this, 'FailedRate', { threshold: 0.05, evaluationPeriods: 3, datapointsToAlarm: 2 });
 * ```
 */
export function failedRateMetric(source: OutcomeMetricSource, period = Duration.minutes(5)): cloudwatch.MathExpression {
  return outcomeShare(source, 'failed', ['processed', 'duplicate', 'failed'], 'failed rate', period);
}
