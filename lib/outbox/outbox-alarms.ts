import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { METRICS_SCHEMA, OUTBOX_METRICS } from '../../functions/inbox/contract.js';
import { ALARM_AT_LEAST_ONCE } from '../shared/alarm-targets.js';
import { inboxMetric } from '../shared/outcome-metrics.js';
import type { OutcomeMetricSource } from '../shared/outcome-metrics.js';
import { scheduleFailedAlarm } from '../scheduled-runs.js';

/** The alarms of a consumer's outbox. */
export interface OutboxAlarms {
  /** A relay run left a row neither sent nor failed older than `oldestUndispatchedAgeThreshold`: a target refuses or throttles, or the relay falls behind. */
  readonly oldestUndispatchedAge: cloudwatch.Alarm;
  /** A target refused a row for ever (marked failed with the reason, never sent again): the consumer's or the relay's send. */
  readonly failedRows: cloudwatch.Alarm;
  /** A relay run failed as a whole (the database, a timeout, its configuration). */
  readonly relayErrors: cloudwatch.Alarm;
  /** The relay was not invoked for three of its periods: its schedule is disabled or gone. */
  readonly relayNotRunning: cloudwatch.Alarm;
  /** EventBridge gave up invoking the relay after its retries. */
  readonly relayScheduleFailed: cloudwatch.Alarm;
}

/** What the outbox alarms watch. */
export interface OutboxAlarmsProps {
  /** Where the consumer and its relay publish: the consumer's namespace and service. */
  readonly metricSource: OutcomeMetricSource;
  readonly relayFunction: lambda.IFunction;
  readonly relayRule: events.IRule;
  readonly relaySchedule: Duration;
  readonly oldestUndispatchedAgeThreshold: Duration;
}

/** Relay periods without an invocation before `relayNotRunning` fires: one late run is not an alarm. */
const NOT_RUNNING_PERIODS = 3;

/**
 * The age of the oldest row neither dispatched nor failed, as each relay run reports it (unit
 * Milliseconds), its highest over `period`: never less than a relay period, so each has a run.
 *
 * @example
 * ```ts
 * new cloudwatch.GraphWidget({ left: [oldestUndispatchedAgeMetric(source, Duration.minutes(1), Duration.minutes(5))] });
 * ```
 */
export function oldestUndispatchedAgeMetric(source: OutcomeMetricSource, relaySchedule: Duration, period = Duration.minutes(5)): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: source.namespace,
    metricName: OUTBOX_METRICS.oldestUndispatchedAge,
    dimensionsMap: { [METRICS_SCHEMA.dimension]: source.serviceName },
    statistic: cloudwatch.Stats.MAXIMUM,
    unit: cloudwatch.Unit.MILLISECONDS,
    period: Duration.seconds(Math.max(period.toSeconds(), relaySchedule.toSeconds())),
  });
}

/**
 * The alarms on a consumer's outbox, made in `scope` with the ids `OldestUndispatchedAge`,
 * `FailedRows`, `RelayErrors`, `RelayNotRunning` and `RelayScheduleFailed`. They take no actions:
 * the caller adds them.
 *
 * @example
 * ```ts
 * const alarms = outboxAlarms(this, { metricSource, relayFunction, relayRule, relaySchedule: Duration.minutes(1), oldestUndispatchedAgeThreshold: Duration.minutes(5) });
 * ```
 */
export function outboxAlarms(scope: Construct, props: OutboxAlarmsProps): OutboxAlarms {
  const name = props.metricSource.serviceName;
  const period = props.relaySchedule;
  return {
    oldestUndispatchedAge: new cloudwatch.Alarm(scope, 'OldestUndispatchedAge', {
      ...ALARM_AT_LEAST_ONCE,
      metric: oldestUndispatchedAgeMetric(props.metricSource, props.relaySchedule),
      threshold: props.oldestUndispatchedAgeThreshold.toMilliseconds(),
      alarmDescription: `${name}: an outbox row has waited ${props.oldestUndispatchedAgeThreshold.toSeconds()} s or more, neither sent nor failed: a target `
        + 'throttles, refuses the function\'s rights or keys, or is unreachable, or the relay falls behind. The reason of its last try is in outbox_message.error.',
    }),
    failedRows: new cloudwatch.Alarm(scope, 'FailedRows', {
      ...ALARM_AT_LEAST_ONCE,
      metric: inboxMetric(props.metricSource, OUTBOX_METRICS.failed),
      alarmDescription: `${name}: a target refused outbox rows for ever (the queue or topic is gone, or the entry is the sender's fault); they are marked `
        + 'failed with the reason in outbox_message.error and never sent again: fix the cause, then send them again by hand.',
    }),
    relayErrors: new cloudwatch.Alarm(scope, 'RelayErrors', {
      ...ALARM_AT_LEAST_ONCE,
      metric: props.relayFunction.metricErrors({ period: Duration.minutes(5), statistic: cloudwatch.Stats.SUM }),
      alarmDescription: `${name}: outbox relay runs failed (the database, a timeout or its configuration; the logs say which); rows left behind wait for a run that works.`,
    }),
    relayNotRunning: new cloudwatch.Alarm(scope, 'RelayNotRunning', {
      metric: props.relayFunction.metricInvocations({ period, statistic: cloudwatch.Stats.SUM }),
      threshold: 1,
      evaluationPeriods: NOT_RUNNING_PERIODS,
      datapointsToAlarm: NOT_RUNNING_PERIODS,
      comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.BREACHING,
      alarmDescription: `${name}: the outbox relay was not invoked for ${NOT_RUNNING_PERIODS} of its periods (a new stack: until its first runs): its schedule `
        + 'is disabled or gone, and rows the invocations left are not sent; the age alarm cannot see it, as only a run reports the age.',
    }),
    relayScheduleFailed: scheduleFailedAlarm(scope, 'RelayScheduleFailed', props.relayRule, `${name}: EventBridge gave up invoking the outbox relay after `
      + 'its retries (the event is in the schedule\'s dead-letter queue, or could not be put there): look at the function\'s permissions and throttles.'),
  };
}
