import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { INBOX_ENV, INBOX_METRICS } from '../../functions/inbox/contract.js';
import { failureQueue } from '../shared/failure-queue.js';
import type { FailureQueueAlarms } from '../shared/failure-queue.js';
import { InboxConsumerBase } from '../consumer/inbox-consumer-base.js';
import type { BacklogGraph, ConsumerSource } from '../consumer/inbox-consumer-base.js';
import { ALARM_AT_LEAST_ONCE } from '../shared/alarm-targets.js';
import type { OutcomeAlarms } from '../consumer/outcome-alarms.js';
import { inboxMetric } from '../shared/outcome-metrics.js';
import { INBOX_WARNINGS, warn } from '../shared/warnings.js';
import type { InboxConsumerProps } from './inbox-consumer-props.js';
import { SQS_RULES } from './sqs-rules.js';
import { resolveSqsSettings } from './sqs-settings.js';
import type { SqsSettings } from './sqs-settings.js';

/** The alarms an `InboxConsumer` makes: the outcome alarms every consumer has, and the queue's. */
export interface InboxConsumerAlarms extends OutcomeAlarms {
  /** A message reached the DLQ. Absent when the construct knows of no DLQ. */
  readonly deadLetterQueueNotEmpty: cloudwatch.Alarm | undefined;
  /**
   * The DLQ's oldest message has been there `deadLetterAgeThreshold` of the time it is sure to be
   * kept, before SQS drops it. Absent when the construct knows of no DLQ or cannot read its retention.
   */
  readonly deadLetterQueueAge: cloudwatch.Alarm | undefined;
  /** The oldest message waited longer than `oldestMessageAgeThreshold`: the consumer is behind or stuck. */
  readonly oldestMessageAge: cloudwatch.Alarm;
  /**
   * A message was keyed by a fallback a redrive replaces (no `idempotency-key` attribute): a redrive
   * would apply it again. Absent with `requireIdempotencyKey`, which rejects such a message instead
   * (the `rejected` alarm sees it), so the runtime never counts one.
   */
  readonly keyFallback: cloudwatch.Alarm | undefined;
}

const SQS_SOURCE: ConsumerSource<SqsSettings> = {
  kind: 'InboxConsumer',
  resolve: resolveSqsSettings,
  rules: SQS_RULES,
  description: (s) => `Inbox consumer ${s.serviceName}: ${s.fifo ? 'FIFO' : 'standard'} queue, claims and effects in one Data API transaction`,
  environment: (s): Record<string, string> => (s.requireIdempotencyKey ? { [INBOX_ENV.requireKeyAttribute]: 'true' } : {}),
  maxInvocations: (s) => s.maxConcurrency,
  capSetting: 'maxConcurrency',
  alarmWords: () => ({
    unit: 'messages',
    wholeBatchRetry: 'the batch returns to the queue',
    failedRetry: 'they return to the queue and reach the DLQ if this lasts',
    throttled: 'messages wait and count receives towards the DLQ',
  }),
};

/**
 * An SQS queue (FIFO or standard) with its DLQ, consumed by a Lambda function that runs the inbox
 * kit against an Aurora cluster through the RDS Data API, with everything the kit's guarantees
 * depend on set: partial batch responses, a visibility timeout of 6 x the function timeout, a DLQ
 * of the same kind after 5 receives, an inbox retention no shorter than any message's life (a
 * redrive's second one included), a concurrency cap sized to the cluster, and alarms on the DLQ
 * (a message in it, and one about to expire), the backlog, function errors and throttles,
 * collisions, rejected messages, messages a redrive would apply again and the duplicate and failed
 * rates, sent to an alarm topic when one is given. Attached to an `InboxDatabase` (`database`), the
 * function signs in as a database role of its own (`databaseRole`) with only the kit's privileges
 * and those the project's migrations grant it, may read that role's secret alone, and waits for the
 * database's migrations. With `outbox`, the function may send to its targets alone and finds them
 * in its environment, and a relay sends what its invocations left (`InboxOutbox`, as `outbox`).
 * Unsafe combinations are refused at synth time with `InfraConfigError`; what cannot
 * be checked (an imported queue's redrive policy and retention, an unknown cluster capacity) and a
 * function left to sign in as the cluster's owner are warned about (`INBOX_WARNINGS`).
 *
 * @example
 * ```ts
 * const orders = new InboxConsumer(this, 'OrderWorker', {
 *   database,                                  // an InboxDatabase: role order_worker, its secret, the cluster's capacity
 *   entry: 'functions/order-worker/index.ts',
 *   queueProps: { fifo: true },
 *   requireIdempotencyKey: true,               // the producer always sends the idempotency-key attribute
 *   alarmTopic: new AlarmTopic(this, 'Alarms', { email: 'ops@example.com' }).topic,
 * });
 * new CfnOutput(this, 'QueueUrl', { value: orders.queue.queueUrl });
 * ```
 */
export class InboxConsumer extends InboxConsumerBase<SqsSettings> {
  /** The queue the function consumes. */
  public readonly queue: sqs.IQueue;
  /** The dead-letter queue, when the construct made one or was given one. */
  public readonly deadLetterQueue: sqs.IQueue | undefined;
  /** The SQS event source mapping, with partial batch responses on. */
  public readonly eventSourceMapping: lambda.EventSourceMapping;
  /** Whether the queue is FIFO. */
  public readonly fifo: boolean;
  /** The alarms. */
  public readonly alarms: InboxConsumerAlarms;

  public constructor(scope: Construct, id: string, props: InboxConsumerProps) {
    super(scope, id, props, SQS_SOURCE);
    const { settings } = this;
    this.fifo = settings.fifo;
    this.deadLetterQueue = props.deadLetterQueue ?? (props.queue ? undefined : failureQueue(this, 'DeadLetterQueue', { fifo: settings.fifo }));
    this.queue = props.queue ?? this.makeQueue(this.deadLetterQueue!);

    this.queue.grantConsumeMessages(this.lambdaFunction);
    this.eventSourceMapping = new lambda.EventSourceMapping(this, 'EventSource', {
      target: this.lambdaFunction,
      eventSourceArn: this.queue.queueArn,
      batchSize: settings.batchSize,
      maxBatchingWindow: props.maxBatchingWindow,
      maxConcurrency: settings.maxConcurrency,
      reportBatchItemFailures: true,
    });

    this.alarms = { ...this.outcomeAlarms, ...this.withAlarmActions(this.makeQueueAlarms()) };
    this.warnOfImportedQueues();
    props.database?.addConsumerSource(this, { consumerName: settings.serviceName, queue: this.queue, deadLetterQueue: this.deadLetterQueue });
  }

  /**
   * The queue's and the DLQ's depth, and the age of their oldest messages.
   *
   * @example
   * ```ts
   * orders.backlogGraphs(Duration.minutes(1)).map((graph) => graph.title) // ['messages waiting', 'age of oldest message (s)']
   * ```
   */
  public backlogGraphs(period: Duration): BacklogGraph[] {
    const queues = [{ queue: this.queue, label: 'queue' }, ...(this.deadLetterQueue ? [{ queue: this.deadLetterQueue, label: 'dead-letter queue' }] : [])];
    return [
      { title: 'messages waiting', metrics: queues.map(({ queue, label }) => queue.metricApproximateNumberOfMessagesVisible({ period, label })) },
      {
        title: 'age of oldest message (s)',
        metrics: queues.map(({ queue, label }) => queue.metricApproximateAgeOfOldestMessage({ period, label, statistic: cloudwatch.Stats.MAXIMUM })),
      },
    ];
  }

  private makeQueue(deadLetterQueue: sqs.IQueue): sqs.Queue {
    const { settings } = this;
    return new sqs.Queue(this, 'Queue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      ...settings.props.queueProps,
      fifo: settings.fifo ? true : undefined,
      visibilityTimeout: settings.queue.visibilityTimeout,
      deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: settings.maxReceiveCount },
    });
  }

  private deadLetterAlarms(): Partial<FailureQueueAlarms> {
    if (this.deadLetterQueue === undefined) return {};
    return this.failureQueueAlarms(this.deadLetterQueue, {
      idPrefix: 'DeadLetterQueue',
      called: 'the dead-letter queue',
      notEmptyDescription: `messages reached the dead-letter queue after ${this.settings.maxReceiveCount} receives. Inspect them, fix the cause, then redrive.`,
      life: this.settings.deadLetterLife,
    });
  }

  private makeQueueAlarms(): Omit<InboxConsumerAlarms, keyof OutcomeAlarms> {
    const { settings } = this;
    const name = settings.serviceName;
    const deadLetter = this.deadLetterAlarms();
    return {
      deadLetterQueueNotEmpty: deadLetter.notEmpty,
      deadLetterQueueAge: deadLetter.age,
      oldestMessageAge: new cloudwatch.Alarm(this, 'OldestMessageAge', {
        ...ALARM_AT_LEAST_ONCE,
        threshold: settings.oldestMessageAgeThreshold.toSeconds(),
        metric: this.queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(1), statistic: cloudwatch.Stats.MAXIMUM }),
        alarmDescription: `${name}: the oldest message has waited ${settings.oldestMessageAgeThreshold.toSeconds()} s or more; the consumer is behind or failing.`,
      }),
      keyFallback: settings.requireIdempotencyKey ? undefined : new cloudwatch.Alarm(this, 'KeyFallback', {
        ...ALARM_AT_LEAST_ONCE,
        metric: inboxMetric(this.metricSource, INBOX_METRICS.keyFallback),
        alarmDescription: `${name}: messages without an idempotency-key attribute were keyed by their MessageDeduplicationId or messageId, which a `
          + 'DLQ redrive replaces, so a redriven copy would be applied again. Send the attribute (sendMessages does), give the handler a key '
          + 'function, or set requireIdempotencyKey to reject such messages.',
      }),
    };
  }

  private warnOfImportedQueues(): void {
    const { settings } = this;
    if (settings.props.queue !== undefined && settings.queue.hasRedrivePolicy === undefined) {
      warn(this, INBOX_WARNINGS.importedQueueRedrivePolicy, 'The imported queue\'s redrive policy cannot be read at synth time: make sure it moves '
        + 'failing messages to a dead-letter queue, and pass that queue as deadLetterQueue for its alarms.');
    }
    const queueUnread = settings.queue.retention === undefined;
    const deadLetterUnread = settings.deadLetterQueue !== undefined && settings.deadLetterQueue.retention === undefined;
    if (queueUnread || deadLetterUnread) {
      const which = [...(queueUnread ? ['queue'] : []), ...(deadLetterUnread ? ['dead-letter queue'] : [])].join(' and the ');
      const alarm = deadLetterUnread
        ? 'no alarm watches a dead-lettered message expire'
        : 'the DLQ age alarm takes a message to reach a standard DLQ with all its retention left';
      warn(this, INBOX_WARNINGS.queueRetentionUnknown, `The imported ${which}'s retention cannot be read at synth time, so the inbox retention `
        + `rule counts it as 0 s and ${alarm}: make sure inboxRetention is at least the queue's retention plus the DLQ's plus the queue's `
        + 'again, and that a dead-lettered message is seen before its DLQ drops it.');
    }
  }
}
