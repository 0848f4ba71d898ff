import { Duration, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sources from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { failureQueue } from '../shared/failure-queue.js';
import { InboxConsumerBase } from '../consumer/inbox-consumer-base.js';
import type { BacklogGraph, ConsumerSource } from '../consumer/inbox-consumer-base.js';
import type { OutcomeAlarms } from '../consumer/outcome-alarms.js';
import { INBOX_WARNINGS, warn } from '../shared/warnings.js';
import type { InboxKafkaConsumerProps } from './inbox-kafka-consumer-props.js';
import { grantKafkaAccess, kafkaSourceMapping } from './kafka-event-source.js';
import { KAFKA_RULES } from './kafka-rules.js';
import { KAFKA_DEFAULTS, resolveKafkaSettings } from './kafka-settings.js';
import type { KafkaSettings } from './kafka-settings.js';

/** The alarms an `InboxKafkaConsumer` makes: the outcome alarms every consumer has, and the topic's. */
export interface InboxKafkaConsumerAlarms extends OutcomeAlarms {
  /** A failure notice reached the on-failure queue. Absent when the destination is not an SQS queue. */
  readonly onFailureQueueNotEmpty: cloudwatch.Alarm | undefined;
  /**
   * The on-failure queue's oldest notice has been there `deadLetterAgeThreshold` of its retention.
   * Absent when the destination is not an SQS queue or its retention cannot be read.
   */
  readonly onFailureQueueAge: cloudwatch.Alarm | undefined;
  /** The consumer group stayed `offsetLagThreshold` records or more behind the topic for 15 minutes. */
  readonly offsetLag: cloudwatch.Alarm;
}

/** The metric Lambda publishes for a function with a Kafka event source (AWS/Lambda, FunctionName). */
export const OFFSET_LAG_METRIC = 'OffsetLag';

const KAFKA_SOURCE: ConsumerSource<KafkaSettings> = {
  kind: 'InboxKafkaConsumer',
  resolve: resolveKafkaSettings,
  rules: KAFKA_RULES,
  description: (s) => `Inbox consumer ${s.serviceName}: Kafka topic ${s.props.topic}, claims and effects in one Data API transaction`,
  environment: () => ({}),
  maxInvocations: (s) => {
    const pollers = s.provisionedPollers?.maximumPollers;
    return pollers === undefined ? undefined : pollers * KAFKA_DEFAULTS.invocationsPerPoller;
  },
  capSetting: 'provisionedPollers.maximumPollers',
  alarmWords: (s) => {
    const onFailure = s.onFailure.kind === 'sqs' ? 'the on-failure queue' : 'the on-failure destination';
    return {
      unit: 'records',
      wholeBatchRetry: `Lambda retries the batch, up to ${s.retryAttempts} times, then sends it to ${onFailure}`,
      failedRetry: `Lambda retries their partitions from the failed offsets and sends them to ${onFailure} after ${s.retryAttempts} retries`,
      throttled: 'records wait in the topic and the offset lag grows',
    };
  },
};

/**
 * A Lambda function that runs the inbox kit on the records of a Kafka topic (Amazon MSK or a
 * self-managed cluster) against an Aurora cluster through the RDS Data API, with what the kit's
 * guarantees depend on set: provisioned pollers and partial batch responses (ReportBatchItemFailures),
 * bounded retries into an on-failure destination (an SQS queue it makes, unless given one), a new
 * consumer group starting from TRIM_HORIZON, an inbox retention no shorter than a record can come
 * back (a redrive's second life in the topic included), a poller cap sized to the cluster, the
 * role's Kafka permissions without the AWS managed policy, and alarms on function errors and
 * throttles, collisions, rejected records, the duplicate and failed rates, the on-failure queue (a
 * notice in it, and one about to expire) and the consumer lag, sent to an alarm topic when one is
 * given. Attached to an `InboxDatabase` (`database`), it signs in as a database role of its own
 * (`databaseRole`) and waits for the database's migrations. With `outbox`, it may send to its
 * targets alone and a relay sends what its invocations left (`InboxOutbox`). Unsafe combinations are refused at synth
 * time with `InfraConfigError`; what cannot be checked is warned about (`INBOX_WARNINGS`).
 *
 * @example
 * ```ts
 * const shipping = new InboxKafkaConsumer(this, 'ShipOrders', {
 *   database,                                  // an InboxDatabase: role ship_orders, its secret, the cluster's capacity
 *   entry: 'functions/ship-orders/index.ts',   // export const handler = (event, context) => processKafkaBatch(...)
 *   source: { kind: 'msk', clusterArn: msk.attrArn },
 *   topic: 'orders',
 *   topicRetention: Duration.days(7),
 *   onFailureReachable: true,                  // the MSK VPC has an SQS interface endpoint
 *   alarmTopic: new AlarmTopic(this, 'Alarms', { email: 'ops@example.com' }).topic,
 * });
 * ```
 */
export class InboxKafkaConsumer extends InboxConsumerBase<KafkaSettings> {
  /** The Kafka event source mapping: provisioned pollers, partial batch responses, bounded retries. */
  public readonly eventSourceMapping: lambda.EventSourceMapping;
  /** The queue failure notices go to, when the destination is an SQS queue. */
  public readonly onFailureQueue: sqs.IQueue | undefined;
  /** The alarms. */
  public readonly alarms: InboxKafkaConsumerAlarms;

  public constructor(scope: Construct, id: string, props: InboxKafkaConsumerProps) {
    super(scope, id, props, KAFKA_SOURCE);
    const settings = this.settings;
    grantKafkaAccess(this.lambdaFunction, {
      source: props.source,
      topic: props.topic,
      consumerGroupId: settings.consumerGroupId,
      onFailureTopic: settings.onFailure.kafkaTopic,
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

    this.alarms = { ...this.outcomeAlarms, ...this.withAlarmActions(this.makeTopicAlarms()) };
    this.warnOfOnFailure();
    props.database?.addConsumerSource(this, { consumerName: settings.serviceName });
  }

  /** The consumer group the event source joins. */
  public get consumerGroupId(): string {
    return this.settings.consumerGroupId;
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

  /**
   * The consumer group's lag behind the topic, and the on-failure queue's depth when there is one.
   *
   * @example
   * ```ts
   * shipping.backlogGraphs(Duration.minutes(1)).map((graph) => graph.title) // ['offset lag (records)', 'failure notices waiting']
   * ```
   */
  public backlogGraphs(period: Duration): BacklogGraph[] {
    const lag: BacklogGraph = { title: 'offset lag (records)', metrics: [this.metricOffsetLag({ period, label: `topic ${this.settings.props.topic}` })] };
    if (this.onFailureQueue === undefined) return [lag];
    return [lag, { title: 'failure notices waiting', metrics: [this.onFailureQueue.metricApproximateNumberOfMessagesVisible({ period, label: 'on-failure queue' })] }];
  }

  private makeOnFailureQueue(): sqs.Queue {
    const queue = failureQueue(this, 'OnFailureQueue', { fifo: false });
    Validations.of(queue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: "This queue is itself a dead-letter queue: the Kafka event source mapping's on-failure destination, to which Lambda sends a "
        + 'notice (partition and offset range) for records whose retries ran out. Nothing consumes it with a redrive policy, so it needs no DLQ.',
    });
    return queue;
  }

  private makeTopicAlarms(): Omit<InboxKafkaConsumerAlarms, keyof OutcomeAlarms> {
    const { settings } = this;
    const name = settings.serviceName;
    const notices = this.onFailureQueue && this.failureQueueAlarms(this.onFailureQueue, {
      idPrefix: 'OnFailureQueue',
      called: 'the on-failure queue',
      life: settings.onFailure.queueRetention,
      notEmptyDescription: `records of topic ${settings.props.topic} failed ${settings.retryAttempts} retries and were skipped; the on-failure queue holds `
        + 'their partition and offset range. Fix the cause, then replay them (consumed_message shows which offsets committed).',
    });
    return {
      onFailureQueueNotEmpty: notices?.notEmpty,
      onFailureQueueAge: notices?.age,
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

  private warnOfOnFailure(): void {
    const { settings } = this;
    const { onFailure, props } = settings;
    if (onFailure.holdsRecords) {
      warn(this, INBOX_WARNINGS.onFailureRetentionUnknown, `How long the on-failure destination (a ${onFailure.kind} destination) keeps a failed record `
        + 'cannot be read at synth time, so inboxRetention is checked against twice topicRetention alone: a record written back to the topic from '
        + 'there starts a second life, so make sure inboxRetention also covers how long the destination keeps it.');
    }
    if (onFailure.queue !== undefined && onFailure.queueRetention === undefined) {
      warn(this, INBOX_WARNINGS.queueRetentionUnknown, 'The imported on-failure queue\'s retention cannot be read at synth time, so no alarm '
        + 'watches a failure notice expire: watch its ApproximateAgeOfOldestMessage against its retention.');
    }
    const pollersInVpc = props.source.kind === 'msk' || props.source.vpc !== undefined;
    if (pollersInVpc && onFailure.outsideCluster && props.onFailureReachable !== true) {
      warn(this, INBOX_WARNINGS.onFailureUnreachable, `Lambda sends records whose retries ran out to the on-failure destination (a ${onFailure.kind} `
        + 'destination) from the pollers in the Kafka cluster\'s VPC, which needs a VPC endpoint for that service (or a NAT gateway); without '
        + 'one such a record is lost. Add the endpoint and set onFailureReachable: true.');
    }
  }
}
