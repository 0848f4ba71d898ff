import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { CLEANUP_METRICS } from '../../functions/inbox/contract.js';

/** What the cleanup alarms watch. */
export interface CleanupAlarmsProps {
  /** The cleanup function. */
  readonly cleanupFunction: lambda.IFunction;
  /** POWERTOOLS_METRICS_NAMESPACE of the cleanup function. */
  readonly namespace: string;
  /** POWERTOOLS_SERVICE_NAME of the cleanup function: the `service` dimension of its metrics. */
  readonly serviceName: string;
  /**
   * Days in a row on which no run finished before the backlog alarm fires; at most 7 (CloudWatch
   * evaluates at most 7 days).
   * @default 3
   */
  readonly backlogDays?: number;
}

/** The cleanup's alarms. */
export interface CleanupAlarms {
  /** A run failed (an error, a timeout, a cluster that did not resume in time). */
  readonly errors: cloudwatch.Alarm;
  /** The backlog lasts: on each of `backlogDays` days, no run deleted all it had to. */
  readonly backlog: cloudwatch.Alarm;
}

/**
 * The alarms of the scheduled cleanup. The backlog alarm takes the highest `done` of each day
 * (1 when a run found nothing left past the retention) and fires when it is 0 on `backlogDays`
 * days in a row: counted in days, not runs, it holds for any schedule of one run a day or more.
 * Missing days count as fine: a failed run still publishes `done = 0` and also fires the errors
 * alarm, while treating a day without data as breaching would raise the alarm on every new stack
 * until its first run, and each day before the run of the day.
 *
 * @example
 * ```ts
 * const alarms = cleanupAlarms(this, { cleanupFunction, namespace: 'SqsInbox/dev', serviceName: 'inbox-cleanup' });
 * alarms.backlog.addAlarmAction(new actions.SnsAction(topic));
 * ```
 */
export function cleanupAlarms(scope: Construct, props: CleanupAlarmsProps): CleanupAlarms {
  const backlogDays = props.backlogDays ?? 3;
  const errors = new cloudwatch.Alarm(scope, 'CleanupErrors', {
    metric: props.cleanupFunction.metricErrors({ period: Duration.hours(1), statistic: cloudwatch.Stats.SUM }),
    threshold: 1,
    evaluationPeriods: 1,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    alarmDescription: 'The inbox cleanup failed: consumed_message grows until it runs again.',
  });
  const done = new cloudwatch.Metric({
    namespace: props.namespace,
    metricName: CLEANUP_METRICS.done,
    dimensionsMap: { service: props.serviceName },
    statistic: cloudwatch.Stats.MAXIMUM,
    unit: cloudwatch.Unit.COUNT,
    period: Duration.days(1),
  });
  const backlog = new cloudwatch.Alarm(scope, 'CleanupBacklog', {
    metric: done,
    threshold: 1,
    evaluationPeriods: backlogDays,
    datapointsToAlarm: backlogDays,
    comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    alarmDescription: `The inbox cleanup has not caught up for ${backlogDays} days: no run deleted every row past the retention. `
      + 'Raise cleanupBatchSize, run it more often, or give it more time.',
  });
  return { errors, backlog };
}
