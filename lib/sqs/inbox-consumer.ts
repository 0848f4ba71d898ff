import { Annotations, Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { INBOX_ENV } from '../../functions/inbox/contract.js';
import { grantDatabaseSignIn } from '../data-api-access.js';
import { InboxConsumerBase } from '../consumer/inbox-consumer-base.js';
import { ALARM_AT_LEAST_ONCE, alarmActionsOf, outcomeAlarms } from '../consumer/outcome-alarms.js';
import type { OutcomeAlarms } from '../consumer/outcome-alarms.js';
import { inboxFunction } from '../inbox-function.js';
import type { InboxConsumerProps } from './inbox-consumer-props.js';
import { validateInboxConsumer } from './sqs-rules.js';
import { INBOX_CONSUMER_DEFAULTS, resolveSettings } from './sqs-settings.js';
import type { InboxConsumerSettings } from './sqs-settings.js';
import type { OutcomeMetricSource } from '../consumer/outcome-metrics.js';

export type { InboxConsumerProps } from './inbox-consumer-props.js';

/** The alarms an `InboxConsumer` makes: the outcome alarms every consumer has, and the queue's. */
export interface InboxConsumerAlarms extends OutcomeAlarms {
  /** A message reached the DLQ. Absent when the construct knows of no DLQ. */
  readonly deadLetterQueueNotEmpty: cloudwatch.Alarm | undefined;
  /** The oldest message waited longer than `oldestMessageAgeThreshold`: the consumer is behind or stuck. */
  readonly oldestMessageAge: cloudwatch.Alarm;
}

/** Ids of the warnings the construct gives at synth time. */
const WARNINGS = {
  importedQueue: 'sqs-inbox:importedQueueRedrivePolicy',
  unknownCapacity: 'sqs-inbox:clusterCapacityUnknown',
} as const;

/**
 * An SQS queue (FIFO or standard) with its DLQ, consumed by a Lambda function that runs the inbox
 * kit against an Aurora cluster through the RDS Data API, with everything the kit's guarantees
 * depend on set: partial batch responses, a visibility timeout of 6 x the function timeout, a DLQ
 * of the same kind after 5 receives, an inbox retention no shorter than any message's life, a
 * concurrency cap sized to the cluster, and alarms on the DLQ, the backlog, function errors and
 * throttles, collisions, rejected messages and the duplicate and failed rates, sent to an alarm
 * topic when one is given. The function signs in to the database with the `secret` it is given, for
 * a role of its own with only its tables' privileges, and may read that secret alone. Unsafe
 * combinations are refused at synth time with `InfraConfigError`; what cannot be checked (an
 * imported queue's redrive policy, an unknown cluster capacity) and a function left to sign in as
 * the cluster's owner are warned about.
 *
 * @example
 * ```ts
 * const orders = new InboxConsumer(this, 'OrderWorker', {
 *   cluster,                                   // rds.DatabaseCluster with enableDataApi: true
 *   secret: workerSecret,                      // rds.DatabaseSecret of the worker's own database role
 *   databaseName: 'inbox',
 *   entry: 'functions/order-worker/index.ts',
 *   queueProps: { fifo: true },
 *   inboxRetention: Duration.days(21),
 *   clusterMaxCapacity: 4,                     // the cluster's serverlessV2MaxCapacity: maxConcurrency 8
 *   alarmTopic: new AlarmTopic(this, 'Alarms', { email: 'ops@example.com' }).topic,
 * });
 * new CfnOutput(this, 'QueueUrl', { value: orders.queue.queueUrl });
 * ```
 */
export class InboxConsumer extends InboxConsumerBase {
  /** The queue the function consumes. */
  public readonly queue: sqs.IQueue;
  /** The dead-letter queue, when the construct made one or was given one. */
  public readonly deadLetterQueue: sqs.IQueue | undefined;
  /** The consumer function. */
  public readonly lambdaFunction: nodejs.NodejsFunction;
  /** The SQS event source mapping, with partial batch responses on. */
  public readonly eventSourceMapping: lambda.EventSourceMapping;
  /** The secret the Data API signs in with: the function's own, or the cluster's (its owner's) when none was given. */
  public readonly secret: secretsmanager.ISecret;
  /** Whether the queue is FIFO. */
  public readonly fifo: boolean;
  /** Where the runtime's outcome metrics are: the Powertools namespace and service name. */
  public readonly metricSource: OutcomeMetricSource;
  /** How long the inbox must keep its rows (what the cleanup's retention must be at least). */
  public readonly inboxRetention: Duration;
  /** The alarms. */
  public readonly alarms: InboxConsumerAlarms;

  public constructor(scope: Construct, id: string, props: InboxConsumerProps) {
    super(scope, id);
    const settings = resolveSettings(props, id);
    validateInboxConsumer(settings);

    this.fifo = settings.fifo;
    this.secret = settings.secret!;
    this.inboxRetention = settings.inboxRetention;
    this.metricSource = { namespace: settings.metricsNamespace, serviceName: settings.serviceName };
    this.deadLetterQueue = props.deadLetterQueue ?? (props.queue ? undefined : this.makeDeadLetterQueue(settings));
    this.queue = props.queue ?? this.makeQueue(settings, this.deadLetterQueue!);

    this.lambdaFunction = inboxFunction(this, 'Function', {
      entry: props.entry,
      handler: settings.handler,
      timeout: settings.timeout,
      memorySize: settings.memorySize,
      logRetention: settings.logRetention,
      description: `Inbox consumer ${settings.serviceName}: ${settings.fifo ? 'FIFO' : 'standard'} queue, claims and effects in one Data API transaction`,
      environment: {
        ...props.environment,
        [INBOX_ENV.clusterArn]: props.cluster.clusterArn,
        [INBOX_ENV.secretArn]: this.secret.secretArn,
        [INBOX_ENV.databaseName]: props.databaseName,
        ...(settings.requireIdempotencyKey ? { [INBOX_ENV.requireKeyAttribute]: 'true' } : {}),
        POWERTOOLS_SERVICE_NAME: settings.serviceName,
        POWERTOOLS_METRICS_NAMESPACE: settings.metricsNamespace,
      },
    });
    grantDatabaseSignIn(this, props.cluster, this.lambdaFunction, props.secret);

    this.queue.grantConsumeMessages(this.lambdaFunction);
    this.eventSourceMapping = new lambda.EventSourceMapping(this, 'EventSource', {
      target: this.lambdaFunction,
      eventSourceArn: this.queue.queueArn,
      batchSize: settings.batchSize,
      maxBatchingWindow: props.maxBatchingWindow,
      maxConcurrency: settings.maxConcurrency,
      reportBatchItemFailures: true,
    });

    this.alarms = this.makeAlarms(settings, alarmActionsOf(props));
    this.warn(settings);
  }


  private warn(settings: InboxConsumerSettings): void {
    if (settings.props.queue !== undefined && settings.queue.hasRedrivePolicy === undefined) {
      Annotations.of(this).addWarningV2(WARNINGS.importedQueue, 'The imported queue\'s redrive policy cannot be read at synth time: make sure it moves '
        + 'failing messages to a dead-letter queue, and pass that queue as deadLetterQueue for its alarm.');
    }
    if (settings.maxConcurrency === undefined) {
      Annotations.of(this).addWarningV2(WARNINGS.unknownCapacity, 'No clusterMaxCapacity (or maxConcurrency) was given, so the event source has no concurrency '
        + 'cap and a burst of messages can use up the cluster\'s connections: pass the cluster\'s serverlessV2MaxCapacity as clusterMaxCapacity.');
    }
  }

  private makeDeadLetterQueue(settings: InboxConsumerSettings): sqs.Queue {
    return new sqs.Queue(this, 'DeadLetterQueue', {
      fifo: settings.fifo ? true : undefined,
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: INBOX_CONSUMER_DEFAULTS.deadLetterRetention,
    });
  }

  private makeQueue(settings: InboxConsumerSettings, deadLetterQueue: sqs.IQueue): sqs.Queue {
    return new sqs.Queue(this, 'Queue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      ...settings.props.queueProps,
      fifo: settings.fifo ? true : undefined,
      visibilityTimeout: settings.queue.visibilityTimeout,
      deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: settings.maxReceiveCount },
    });
  }

  private makeAlarms(settings: InboxConsumerSettings, actions: cloudwatch.IAlarmAction[]): InboxConsumerAlarms {
    const name = settings.serviceName;
    const alarms: InboxConsumerAlarms = {
      deadLetterQueueNotEmpty: this.deadLetterQueue
        ? new cloudwatch.Alarm(this, 'DeadLetterQueueNotEmpty', {
            ...ALARM_AT_LEAST_ONCE,
            metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: cloudwatch.Stats.MAXIMUM }),
            alarmDescription: `${name}: messages reached the dead-letter queue after ${settings.maxReceiveCount} receives. Inspect them, fix the cause, then redrive.`,
          })
        : undefined,
      oldestMessageAge: new cloudwatch.Alarm(this, 'OldestMessageAge', {
        ...ALARM_AT_LEAST_ONCE,
        threshold: settings.oldestMessageAgeThreshold.toSeconds(),
        metric: this.queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(1), statistic: cloudwatch.Stats.MAXIMUM }),
        alarmDescription: `${name}: the oldest message has waited ${settings.oldestMessageAgeThreshold.toSeconds()} s or more; the consumer is behind or failing.`,
      }),
      ...outcomeAlarms(this, {
        lambdaFunction: this.lambdaFunction,
        metricSource: this.metricSource,
        duplicateRateThreshold: settings.duplicateRateThreshold,
        failedRateThreshold: settings.failedRateThreshold,
        unit: 'messages',
        wholeBatchRetry: 'the batch returns to the queue',
        failedRetry: 'they return to the queue and reach the DLQ if this lasts',
        throttled: 'messages wait and count receives towards the DLQ',
      }),
    };
    for (const alarm of Object.values(alarms)) {
      if (alarm) alarm.addAlarmAction(...actions);
    }
    return alarms;
  }
}
