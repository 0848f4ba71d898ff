import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { CONSUMER_DEFAULTS } from './consumer-defaults.js';
import { ALARM_AT_LEAST_ONCE } from './alarm-targets.js';

/**
 * A queue that holds what failed for good (an SQS consumer's DLQ, a Kafka consumer's on-failure
 * queue, the cleanup schedule's DLQ): SQS-managed encryption, TLS only, kept the 14 days SQS allows
 * at most, so it waits as long as it can for someone to look at it.
 *
 * @example
 * ```ts
 * const dlq = failureQueue(this, 'DeadLetterQueue', { fifo: true });
 * ```
 */
export function failureQueue(scope: Construct, id: string, props: { readonly fifo: boolean }): sqs.Queue {
  return new sqs.Queue(scope, id, {
    fifo: props.fifo ? true : undefined,
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: CONSUMER_DEFAULTS.deadLetterRetention,
  });
}

/** What the alarms on a failure queue watch and say. */
export interface FailureQueueAlarmsProps {
  /** The queue. */
  readonly queue: sqs.IQueue;
  /** Prefix of the alarms' ids: `<prefix>NotEmpty`, `<prefix>Age`. */
  readonly idPrefix: string;
  /** The alarm descriptions begin with this (the consumer's service name). */
  readonly name: string;
  /** What the queue is called in the age alarm's description, e.g. `the dead-letter queue`. */
  readonly called: string;
  /** The description of the alarm on the first message: what arrived, and what to do. */
  readonly notEmptyDescription: string;
  /**
   * How long a message is sure to stay in the queue once there (its retention, less the time a
   * standard DLQ's message may already have spent in its queue); `undefined` when it cannot be read.
   */
  readonly life: Duration | undefined;
  /** Share of `life` at which the age alarm fires. */
  readonly ageShare: number;
}

/** The alarms on a failure queue. */
export interface FailureQueueAlarms {
  /** Something reached the queue. */
  readonly notEmpty: cloudwatch.Alarm;
  /** Its oldest message has been there `ageShare` of the time it stays; absent when that time cannot be read. */
  readonly age: cloudwatch.Alarm | undefined;
}

const days = (d: Duration): string => `${Number(d.toDays({ integral: false }).toFixed(1))} days`;

/**
 * An alarm on the first message in a failure queue, and one on its oldest message's age at
 * `ageShare` of the time it stays there, before SQS drops it unseen.
 *
 * @example
 * ```ts
 * failureQueueAlarms(this, { queue: dlq, idPrefix: 'DeadLetterQueue', name, called: 'the dead-letter queue',
 *   notEmptyDescription: 'messages reached the dead-letter queue. Inspect them, fix the cause, then redrive.', life: Duration.days(14), ageShare: 0.7 });
 * ```
 */
export function failureQueueAlarms(scope: Construct, props: FailureQueueAlarmsProps): FailureQueueAlarms {
  const period = Duration.minutes(1);
  const notEmpty = new cloudwatch.Alarm(scope, `${props.idPrefix}NotEmpty`, {
    ...ALARM_AT_LEAST_ONCE,
    metric: props.queue.metricApproximateNumberOfMessagesVisible({ period, statistic: cloudwatch.Stats.MAXIMUM }),
    alarmDescription: `${props.name}: ${props.notEmptyDescription}`,
  });
  if (props.life === undefined) return { notEmpty, age: undefined };
  const threshold = Duration.seconds(Math.floor(props.life.toSeconds() * props.ageShare));
  const age = new cloudwatch.Alarm(scope, `${props.idPrefix}Age`, {
    ...ALARM_AT_LEAST_ONCE,
    threshold: threshold.toSeconds(),
    metric: props.queue.metricApproximateAgeOfOldestMessage({ period, statistic: cloudwatch.Stats.MAXIMUM }),
    alarmDescription: `${props.name}: a message has waited ${days(threshold)} in ${props.called}, ${Math.round(props.ageShare * 100)} % of the `
      + `${days(props.life)} it is sure to be kept there; SQS then drops it. Redrive it, or keep what it says, before that.`,
  });
  return { notEmpty, age };
}
