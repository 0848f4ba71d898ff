import { Duration, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { failureQueue } from './shared/failure-queue.js';
import { ALARM_AT_LEAST_ONCE } from './shared/alarm-targets.js';

/** What `scheduledRuns` takes. */
export interface ScheduledRunsProps {
  /** The function the schedule invokes. */
  readonly target: lambda.IFunction;
  readonly schedule: events.Schedule;
  /** The rule's description. */
  readonly description: string;
  /** What the function is, in the DLQ's cdk-nag acknowledgement: `the cleanup`, `the outbox relay of order-worker`. */
  readonly subject: string;
}

/** A schedule's rule and the queue where EventBridge puts an invocation it gave up on. */
export interface ScheduledRuns {
  readonly rule: events.Rule;
  readonly deadLetterQueue: sqs.Queue;
}

/** Tries EventBridge makes after a failed invocation of a scheduled function, before the target's DLQ. */
const SCHEDULE_RETRIES = 2;

/**
 * An EventBridge rule (`Schedule`) that runs one of the kit's functions on a schedule: a failed
 * invocation is tried twice more, then put in a dead-letter queue of the schedule's own
 * (`ScheduleDeadLetterQueue`, which `scheduleFailedAlarm` watches through the rule's metrics).
 *
 * @example
 * ```ts
 * const { rule, deadLetterQueue } = scheduledRuns(this, { target: fn, schedule: events.Schedule.rate(Duration.minutes(1)), description: 'Runs the relay', subject: 'the relay' });
 * ```
 */
export function scheduledRuns(scope: Construct, props: ScheduledRunsProps): ScheduledRuns {
  const deadLetterQueue = failureQueue(scope, 'ScheduleDeadLetterQueue', { fifo: false });
  const rule = new events.Rule(scope, 'Schedule', {
    description: props.description,
    schedule: props.schedule,
    targets: [new targets.LambdaFunction(props.target, { retryAttempts: SCHEDULE_RETRIES, deadLetterQueue })],
  });
  Validations.of(deadLetterQueue).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason: `This queue is itself a dead-letter queue: the target DLQ of the schedule of ${props.subject}, where EventBridge puts a run it could `
      + 'not invoke after its retries (an alarm watches for that). Nothing consumes it with a redrive policy, so it needs no DLQ of its own.',
  });
  return { rule, deadLetterQueue };
}

/** EventBridge's count of a rule's target invocations that `name` says (AWS/Events, RuleName). */
const ruleMetric = (rule: events.IRule, metricName: string): cloudwatch.Metric => new cloudwatch.Metric({
  namespace: 'AWS/Events',
  metricName,
  dimensionsMap: { RuleName: rule.ruleName },
  statistic: cloudwatch.Stats.SUM,
  period: Duration.minutes(5),
});

/**
 * An alarm on the invocations EventBridge gave up on for `rule`: its failed invocations, with
 * those it sent to the target's DLQ and those it could not send there.
 *
 * @example
 * ```ts
 * scheduleFailedAlarm(this, 'RelayScheduleFailed', rule, 'EventBridge gave up invoking the relay ...');
 * ```
 */
export function scheduleFailedAlarm(scope: Construct, id: string, rule: events.IRule, alarmDescription: string): cloudwatch.Alarm {
  return new cloudwatch.Alarm(scope, id, {
    ...ALARM_AT_LEAST_ONCE,
    metric: new cloudwatch.MathExpression({
      expression: 'FILL(failed, 0) + FILL(dlq, 0) + FILL(notDlq, 0)',
      usingMetrics: {
        failed: ruleMetric(rule, 'FailedInvocations'),
        dlq: ruleMetric(rule, 'InvocationsSentToDlq'),
        notDlq: ruleMetric(rule, 'InvocationsFailedToBeSentToDlq'),
      },
      label: 'failed schedule invocations',
      period: Duration.minutes(5),
    }),
    alarmDescription,
  });
}
