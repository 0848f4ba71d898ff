import { Annotations, Duration, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sources from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { INBOX_ENV } from '../../functions/inbox/contract.js';
import { grantDatabaseSignIn } from '../data-api-access.js';
import { InboxConsumerBase } from '../consumer/inbox-consumer-base.js';
import { inboxFunction } from '../inbox-function.js';
import type { InboxKafkaConsumerProps } from './inbox-kafka-consumer-props.js';
import { validateInboxKafkaConsumer } from './kafka-rules.js';
import { INBOX_KAFKA_CONSUMER_DEFAULTS, resolveKafkaSettings } from './kafka-settings.js';
import type { InboxKafkaConsumerSettings } from './kafka-settings.js';
import { grantKafkaAccess, kafkaSourceMapping } from './kafka-event-source.js';
import { ALARM_AT_LEAST_ONCE, alarmActionsOf, outcomeAlarms } from '../consumer/outcome-alarms.js';
import type { OutcomeAlarms } from '../consumer/outcome-alarms.js';
import type { OutcomeMetricSource } from '../consumer/outcome-metrics.js';

export type { InboxKafkaConsumerProps, InboxKafkaSource, MskSource, SelfManagedKafkaSource } from './inbox-kafka-consumer-props.js';

/** The alarms an `InboxKafkaConsumer` makes. */
export interface InboxKafkaConsumerAlarms extends OutcomeAlarms {
  /** A failure notice reached the on-failure queue. Absent when the destination is not an SQS queue. */
  readonly onFailureQueueNotEmpty: cloudwatch.Alarm | undefined;
  /** The consumer group stayed `offsetLagThreshold` records or more behind the topic for 15 minutes. */
  readonly offsetLag: cloudwatch.Alarm;
}

/** The metric Lambda publishes for a function with a Kafka event source (AWS/Lambda, FunctionName). */
export const OFFSET_LAG_METRIC = 'OffsetLag';

/** Ids of the warnings the construct gives at synth time. */
const WARNINGS = {
  uncappedPollers: 'sqs-inbox:kafkaPollersUncapped',
  onFailureRetention: 'sqs-inbox:onFailureRetentionUnknown',
} as const;

/**
 * A Lambda function that runs the inbox kit on the records of a Kafka topic (Amazon MSK or a
 * self-managed cluster) against an Aurora cluster through the RDS Data API, with what the kit's
 * guarantees depend on set: provisioned pollers and partial batch responses (ReportBatchItemFailures),
 * bounded retries into an on-failure destination (an SQS queue it makes, unless given one), a new
 * consumer group starting from TRIM_HORIZON, an inbox retention no shorter than a record can come
 * back, a poller cap sized to the cluster, the role's Kafka permissions without the AWS managed
 * policy, and alarms on function errors and throttles, collisions, rejected records, the duplicate
 * and failed rates, the on-failure queue and the consumer lag, sent to an alarm topic when one is
 * given. Unsafe combinations are refused at synth time with `InfraConfigError`.
 *
 * @example
 * ```ts
 * const shipping = new InboxKafkaConsumer(this, 'ShipOrders', {
 *   cluster,                                   // rds.DatabaseCluster with enableDataApi: true
 *   databaseName: 'inbox',
 *   entry: 'functions/ship-orders/index.ts',   // export const handler = (event, context) => processKafkaBatch(...)
 *   source: { kind: 'msk', clusterArn: msk.attrArn },
 *   topic: 'orders',
 *   topicRetention: Duration.days(7),
 *   clusterMaxCapacity: 4,
 *   alarmTopic: new AlarmTopic(this, 'Alarms', { email: 'ops@example.com' }).topic,
 * });
 * ```
 */
export class InboxKafkaConsumer extends InboxConsumerBase {
  /** The consumer function. */
  public readonly lambdaFunction: nodejs.NodejsFunction;
  /** The Kafka event source mapping: provisioned pollers, partial batch responses, bounded retries. */
  public readonly eventSourceMapping: lambda.EventSourceMapping;
  /** The queue failure notices go to, when the destination is an SQS queue. */
  public readonly onFailureQueue: sqs.IQueue | undefined;
  /** The consumer group the event source joins. */
  public readonly consumerGroupId: string;
  /** The secret the Data API signs in with. */
  public readonly secret: secretsmanager.ISecret;
  /** Where the runtime's outcome metrics are: the Powertools namespace and service name. */
  public readonly metricSource: OutcomeMetricSource;
  /** How long the inbox must keep its rows (what the cleanup's retention must be at least). */
  public readonly inboxRetention: Duration;
  /** The alarms. */
  public readonly alarms: InboxKafkaConsumerAlarms;

  public constructor(scope: Construct, id: string, props: InboxKafkaConsumerProps) {
    super(scope, id);
    const settings = resolveKafkaSettings(props, this);
    validateInboxKafkaConsumer(settings);

    this.secret = settings.secret!;
    this.consumerGroupId = settings.consumerGroupId;
    this.inboxRetention = settings.inboxRetention;
    this.metricSource = { namespace: settings.metricsNamespace, serviceName: settings.serviceName };

    this.lambdaFunction = inboxFunction(this, 'Function', {
      entry: props.entry,
      handler: settings.handler,
      timeout: settings.timeout,
      memorySize: settings.memorySize,
      logRetention: settings.logRetention,
      description: `Inbox consumer ${settings.serviceName}: Kafka topic ${props.topic}, claims and effects in one Data API transaction`,
      environment: {
        ...props.environment,
        [INBOX_ENV.clusterArn]: props.cluster.clusterArn,
        [INBOX_ENV.secretArn]: this.secret.secretArn,
        [INBOX_ENV.databaseName]: props.databaseName,
        POWERTOOLS_SERVICE_NAME: settings.serviceName,
        POWERTOOLS_METRICS_NAMESPACE: settings.metricsNamespace,
      },
    });
    grantDatabaseSignIn(this, props.cluster, this.lambdaFunction, props.secret);
    grantKafkaAccess(this.lambdaFunction, {
      source: props.source,
      topic: props.topic,
      consumerGroupId: settings.consumerGroupId,
      onFailureTopic: settings.onFailure.kind === 'kafka' ? settings.onFailure.kafkaTopic : undefined,
    });

    const madeQueue = settings.onFailure.madeHere ? this.makeOnFailureQueue() : undefined;
    this.onFailureQueue = madeQueue ?? settings.onFailure.queue;
    this.eventSourceMapping = new lambda.EventSourceMapping(this, 'EventSource', {
      target: this.lambdaFunction,
      ...kafkaSourceMapping(props.source),
      kafkaTopic: props.topic,
      kafkaConsumerGroupId: settings.consumerGroupId,
      startingPosition: settings.startingPosition,
      startingPositionTimestamp: props.startingPositionTimestamp,
      batchSize: settings.batchSize,
      maxBatchingWindow: props.maxBatchingWindow,
      provisionedPollerConfig: settings.provisionedPollers,
      reportBatchItemFailures: true,
      retryAttempts: settings.retryAttempts,
      maxRecordAge: props.maxRecordAge,
      bisectBatchOnError: settings.bisectBatchOnError,
      onFailure: madeQueue ? new sources.SqsDlq(madeQueue) : props.onFailure,
      supportS3OnFailureDestination: true,
    });

    this.alarms = this.makeAlarms(settings);
    const alarmActions = alarmActionsOf(props);
    for (const alarm of Object.values(this.alarms)) alarm?.addAlarmAction(...alarmActions);
    this.warn(settings);
  }


  /**
   * Lambda's `OffsetLag`: how many records the consumer group is behind the last one written to
   * the topic, at the topic level; the highest over `period` by default.
   *
   * @example
   * ```ts
   * new cloudwatch.GraphWidget({ left: [shipping.metricOffsetLag()] });
   * ```
   */
  public metricOffsetLag(props: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return this.lambdaFunction.metric(OFFSET_LAG_METRIC, { statistic: cloudwatch.Stats.MAXIMUM, period: Duration.minutes(5), ...props });
  }

  private makeOnFailureQueue(): sqs.Queue {
    const queue = new sqs.Queue(this, 'OnFailureQueue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: INBOX_KAFKA_CONSUMER_DEFAULTS.onFailureRetention,
    });
    Validations.of(queue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: "This queue is itself a dead-letter queue: the Kafka event source mapping's on-failure destination, to which Lambda sends a "
        + 'notice (partition and offset range) for records whose retries ran out. Nothing consumes it with a redrive policy, so it needs no DLQ.',
    });
    return queue;
  }

  private makeAlarms(settings: InboxKafkaConsumerSettings): InboxKafkaConsumerAlarms {
    const name = settings.serviceName;
    const onFailure = settings.onFailure.kind === 'sqs' ? 'the on-failure queue' : 'the on-failure destination';
    const shared = outcomeAlarms(this, {
      lambdaFunction: this.lambdaFunction,
      metricSource: this.metricSource,
      duplicateRateThreshold: settings.duplicateRateThreshold,
      failedRateThreshold: settings.failedRateThreshold,
      unit: 'records',
      wholeBatchRetry: `Lambda retries the batch, up to ${settings.retryAttempts} times, then sends it to ${onFailure}`,
      failedRetry: `Lambda retries their partitions from the failed offsets and sends them to ${onFailure} after ${settings.retryAttempts} retries`,
      throttled: 'records wait in the topic and the offset lag grows',
    });
    const queue = this.onFailureQueue;
    return {
      ...shared,
      onFailureQueueNotEmpty: queue
        ? new cloudwatch.Alarm(this, 'OnFailureQueueNotEmpty', {
            ...ALARM_AT_LEAST_ONCE,
            metric: queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: cloudwatch.Stats.MAXIMUM }),
            alarmDescription: `${name}: records of topic ${settings.props.topic} failed ${settings.retryAttempts} retries and were skipped; the on-failure queue holds `
              + 'their partition and offset range. Fix the cause, then replay them (consumed_message shows which offsets committed).',
          })
        : undefined,
      offsetLag: new cloudwatch.Alarm(this, 'OffsetLag', {
        metric: this.metricOffsetLag(),
        threshold: settings.offsetLagThreshold,
        evaluationPeriods: 3,
        datapointsToAlarm: 3,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        alarmDescription: `${name}: the consumer group has been ${settings.offsetLagThreshold} records or more behind topic ${settings.props.topic} for 15 minutes; `
          + 'the consumer is slow, failing or throttled. Records past the topic retention are lost to it.',
      }),
    };
  }

  private warn(settings: InboxKafkaConsumerSettings): void {
    if (settings.provisionedPollers?.maximumPollers === undefined) {
      Annotations.of(this).addWarningV2(WARNINGS.uncappedPollers, 'No clusterMaxCapacity (or provisionedPollers.maximumPollers) was given, so the event source '
        + 'may scale to Lambda\'s 200 pollers (up to 5 invocations each) and use up the cluster\'s connections: pass the cluster\'s serverlessV2MaxCapacity as clusterMaxCapacity.');
    }
    if (!settings.onFailure.madeHere && settings.onFailure.retention === undefined) {
      Annotations.of(this).addWarningV2(WARNINGS.onFailureRetention, `The on-failure destination's retention (a ${settings.onFailure.kind} destination) cannot be read at synth `
        + 'time, so inboxRetention is checked against topicRetention alone: make sure it also covers how long a failed record may wait there to be replayed.');
    }
  }
}
