import type { Duration } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import { duplicateRateMetric, failedRateMetric, outcomeMetric, processingLatencyMetric } from './outcome-metrics.js';
import type { InboxOutcome, OutcomeMetricSource } from './outcome-metrics.js';

/**
 * What every inbox consumer construct offers, whatever its event source: the runtime's outcome
 * metrics, read from the Powertools namespace and service its function publishes under.
 *
 * @example
 * ```ts
 * dashboard.addWidgets(new cloudwatch.GraphWidget({ left: [consumer.metricOutcome('failed'), consumer.metricFailedRate()] }));
 * ```
 */
export abstract class InboxConsumerBase extends Construct {
  /** Where the runtime's outcome metrics are: the Powertools namespace and service name. */
  public abstract readonly metricSource: OutcomeMetricSource;

  /**
   * The count of one outcome (`processed`, `duplicate`, `collision`, `rejected`, `failed`, `skipped`).
   *
   * @example
   * ```ts
   * dashboard.addWidgets(new cloudwatch.GraphWidget({ left: [orders.metricOutcome('failed')] }));
   * ```
   */
  public metricOutcome(outcome: InboxOutcome, period?: Duration): cloudwatch.Metric {
    return outcomeMetric(this.metricSource, outcome, period);
  }

  /**
   * The per-record processing latency at a statistic such as `p99`.
   *
   * @example
   * ```ts
   * orders.metricProcessingLatency(cloudwatch.Stats.p(99));
   * ```
   */
  public metricProcessingLatency(statistic: string, period?: Duration): cloudwatch.Metric {
    return processingLatencyMetric(this.metricSource, statistic, period);
  }

  /**
   * Duplicates as a share of processed plus duplicate records.
   *
   * @example
   * ```ts
   * new cloudwatch.GraphWidget({ left: [orders.metricDuplicateRate()] });
   * ```
   */
  public metricDuplicateRate(period?: Duration): cloudwatch.MathExpression {
    return duplicateRateMetric(this.metricSource, period);
  }

  /**
   * Failed records as a share of processed, duplicate and failed ones.
   *
   * @example
   * ```ts
   * new cloudwatch.GraphWidget({ left: [orders.metricFailedRate()] });
   * ```
   */
  public metricFailedRate(period?: Duration): cloudwatch.MathExpression {
    return failedRateMetric(this.metricSource, period);
  }
}
