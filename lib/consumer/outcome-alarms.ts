import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { duplicateRateMetric, failedRateMetric, outcomeMetric } from '../shared/outcome-metrics.js';
import type { OutcomeMetricSource } from '../shared/outcome-metrics.js';
import { ALARM_AT_LEAST_ONCE } from '../shared/alarm-targets.js';

/** The alarms every inbox consumer has, whatever its event source. */
export interface OutcomeAlarms {
  /** Invocations failed as a whole (a crash, a timeout, a refused event), not single records. */
  readonly functionErrors: cloudwatch.Alarm;
  /** An idempotency key came back with a different body: a producer reuses keys. */
  readonly collisions: cloudwatch.Alarm;
  /** Duplicates rose above the duplicate rate threshold of processed plus duplicate records. */
  readonly duplicateRate: cloudwatch.Alarm;
  /**
   * A record was rejected (it cannot be parsed or keyed, or the handler threw PermanentError).
   * Rejected records are acknowledged, with the reason in the inbox, so no DLQ alarm sees them.
   */
  readonly rejected: cloudwatch.Alarm;
  /** Failed records rose above the failed rate threshold of processed, duplicate and failed ones. */
  readonly failedRate: cloudwatch.Alarm;
  /** Lambda throttled the function: the account's or the function's concurrency is used up. */
  readonly throttles: cloudwatch.Alarm;
}

/** What the shared alarms watch, and the words that say what the event source does with a failure. */
export interface OutcomeAlarmsProps {
  /** The consumer function. */
  readonly lambdaFunction: lambda.IFunction;
  /** Where the runtime's outcome metrics are. */
  readonly metricSource: OutcomeMetricSource;
  /** Share (0 to 1) of duplicates among processed plus duplicate records at which the duplicate rate alarm fires. */
  readonly duplicateRateThreshold: number;
  /** Share (0 to 1) of failed records among processed, duplicate and failed ones at which the failed rate alarm fires. */
  readonly failedRateThreshold: number;
  /** What the source calls a record: `messages` (SQS) or `records` (Kafka). */
  readonly unit: string;
  /** What happens to a batch whose invocation failed, e.g. `the batch returns to the queue`. */
  readonly wholeBatchRetry: string;
  /** What happens to failed records, e.g. `they return to the queue and reach the DLQ if this lasts`. */
  readonly failedRetry: string;
  /** What a throttle does to waiting records, e.g. `messages wait and count receives towards the DLQ`. */
  readonly throttled: string;
}

/** The words in which the shared alarms say what a consumer's event source does with a failure. */
export type OutcomeAlarmWords = Pick<OutcomeAlarmsProps, 'unit' | 'wholeBatchRetry' | 'failedRetry' | 'throttled'>;

/** A rate alarm looks at 5-minute periods and fires on 2 of 3, so one bad period is not a page. */
const RATE_ALARM = {
  evaluationPeriods: 3,
  datapointsToAlarm: 2,
  comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
  treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
} as const;

/**
 * The alarms on the function and the runtime's outcome metrics that every inbox consumer needs,
 * made in `scope` with the ids `FunctionErrors`, `Collisions`, `DuplicateRate`, `Rejected`,
 * `FailedRate` and `Throttles`. They take no actions: the caller adds them (`alarmActionsOf`).
 *
 * @example
 * ```ts
 * const alarms = outcomeAlarms(this, {
 *   lambdaFunction, metricSource, duplicateRateThreshold: 0.1, failedRateThreshold: 0.05, unit: 'records',
 *   wholeBatchRetry: 'Lambda retries the batch', failedRetry: 'Lambda retries them', throttled: 'records wait in the topic',
 * });
 * ```
 */
export function outcomeAlarms(scope: Construct, props: OutcomeAlarmsProps): OutcomeAlarms {
  const name = props.metricSource.serviceName;
  const { unit } = props;
  return {
    functionErrors: new cloudwatch.Alarm(scope, 'FunctionErrors', {
      ...ALARM_AT_LEAST_ONCE,
      metric: props.lambdaFunction.metricErrors({ period: Duration.minutes(5), statistic: cloudwatch.Stats.SUM }),
      alarmDescription: `${name}: invocations failed as a whole (crash, timeout or refused event); ${props.wholeBatchRetry}.`,
    }),
    collisions: new cloudwatch.Alarm(scope, 'Collisions', {
      ...ALARM_AT_LEAST_ONCE,
      metric: outcomeMetric(props.metricSource, 'collision'),
      alarmDescription: `${name}: an idempotency key arrived with a different body and was acknowledged without effect; a producer reuses keys.`,
    }),
    duplicateRate: new cloudwatch.Alarm(scope, 'DuplicateRate', {
      ...RATE_ALARM,
      metric: duplicateRateMetric(props.metricSource),
      threshold: props.duplicateRateThreshold,
      alarmDescription: `${name}: duplicates are over ${props.duplicateRateThreshold * 100} % of processed plus duplicate ${unit}; look for producer retries or redelivery loops.`,
    }),
    rejected: new cloudwatch.Alarm(scope, 'Rejected', {
      ...ALARM_AT_LEAST_ONCE,
      metric: outcomeMetric(props.metricSource, 'rejected'),
      alarmDescription: `${name}: ${unit} were rejected (unparsable, without a usable key, or refused by the handler) and acknowledged without effect; `
        + 'the reason of each is in consumed_message.error.',
    }),
    failedRate: new cloudwatch.Alarm(scope, 'FailedRate', {
      ...RATE_ALARM,
      metric: failedRateMetric(props.metricSource),
      threshold: props.failedRateThreshold,
      alarmDescription: `${name}: failed ${unit} are over ${props.failedRateThreshold * 100} % of processed, duplicate and failed ones; `
        + `${props.failedRetry}. Look at the database and the handler errors in the logs.`,
    }),
    throttles: new cloudwatch.Alarm(scope, 'Throttles', {
      ...ALARM_AT_LEAST_ONCE,
      metric: props.lambdaFunction.metricThrottles({ period: Duration.minutes(5), statistic: cloudwatch.Stats.SUM }),
      alarmDescription: `${name}: invocations were throttled (account or reserved concurrency used up); ${props.throttled}.`,
    }),
  };
}
