import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { CLEANUP_METRICS, METRICS_SCHEMA } from '../../functions/inbox/contract.js';
import { ALARM_AT_LEAST_ONCE } from '../shared/alarm-targets.js';
import { scheduleFailedAlarm } from '../scheduled-runs.js';

/** What the cleanup alarms watch. */
export interface CleanupAlarmsProps {
  /** The cleanup function. */
  readonly cleanupFunction: lambda.IFunction;
  /** The EventBridge rule that runs it, at least once a day (`dailyScheduleProblem`). */
  readonly schedule: events.IRule;
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
  /** The function was not invoked on two days in a row: the rule is disabled or deleted, or EventBridge cannot invoke it. */
  readonly notRunning: cloudwatch.Alarm;
  /** EventBridge gave up invoking the function (after its retries, into the target's DLQ or not). */
  readonly scheduleFailed: cloudwatch.Alarm;
}

const DAY = Duration.days(1);

/**
 * The alarms of the scheduled cleanup.
 *
 * - `errors`: a run failed.
 * - `backlog`: the highest `done` of each day (1 when a run found nothing left past the retention)
 *   is 0 on `backlogDays` days in a row. Counted in days, not runs, it holds for any schedule of one
 *   run a day or more. Missing days count as fine here: a failed run still publishes `done = 0` and
 *   fires `errors`, and a cleanup that does not run at all is `notRunning`'s.
 * - `notRunning`: the function's invocations are under 1 on two days in a row, a day without any
 *   counting as breaching (Lambda publishes nothing for a function nobody invokes). Two days, so
 *   that the day before its run is not an alarm; a new stack is in alarm until its first run.
 * - `scheduleFailed`: EventBridge's failed invocations of the target, with those it sent to the
 *   target's DLQ and those it could not send there.
 *
 * @example
 * ```ts
 * const alarms = cleanupAlarms(this, { cleanupFunction, schedule, namespace: 'SqsInbox/dev', serviceName: 'inbox-cleanup' });
 * alarms.notRunning.addAlarmAction(new actions.SnsAction(topic));
 * ```
 */
export function cleanupAlarms(scope: Construct, props: CleanupAlarmsProps): CleanupAlarms {
  const backlogDays = props.backlogDays ?? 3;
  const errors = new cloudwatch.Alarm(scope, 'CleanupErrors', {
    ...ALARM_AT_LEAST_ONCE,
    metric: props.cleanupFunction.metricErrors({ period: Duration.hours(1), statistic: cloudwatch.Stats.SUM }),
    alarmDescription: 'The inbox cleanup failed: consumed_message grows until it runs again.',
  });
  const done = new cloudwatch.Metric({
    namespace: props.namespace,
    metricName: CLEANUP_METRICS.done,
    dimensionsMap: { [METRICS_SCHEMA.dimension]: props.serviceName },
    statistic: cloudwatch.Stats.MAXIMUM,
    unit: cloudwatch.Unit.COUNT,
    period: DAY,
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
  const notRunning = new cloudwatch.Alarm(scope, 'CleanupNotRunning', {
    metric: props.cleanupFunction.metricInvocations({ period: DAY, statistic: cloudwatch.Stats.SUM }),
    threshold: 1,
    evaluationPeriods: 2,
    datapointsToAlarm: 2,
    comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
    treatMissingData: cloudwatch.TreatMissingData.BREACHING,
    alarmDescription: 'The inbox cleanup was not invoked on two days in a row (a new stack: until its first run): its schedule is disabled or '
      + 'gone, or EventBridge cannot invoke it. consumed_message grows, and nothing else says so: its other alarms need a run.',
  });
  const scheduleFailed = scheduleFailedAlarm(scope, 'CleanupScheduleFailed', props.schedule, 'EventBridge gave up invoking the inbox cleanup after '
    + 'its retries (the event is in the schedule\'s dead-letter queue, or could not be put there): look at the function\'s permissions and throttles, '
    + 'then run it by hand.');
  return { errors, backlog, notRunning, scheduleFailed };
}
