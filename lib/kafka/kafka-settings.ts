import { Duration, Names } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sources from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { INBOX_CONSUMER_DEFAULTS, clusterSecret, queueFacts } from '../sqs/sqs-settings.js';
import { TIME_DEFAULTS } from '../../functions/inbox/contract.js';
import type { InboxKafkaConsumerProps } from './inbox-kafka-consumer-props.js';

/**
 * Every default of `InboxKafkaConsumer`, in one place; those it shares with `InboxConsumer` come
 * from `INBOX_CONSUMER_DEFAULTS`.
 *
 * @example
 * ```ts
 * template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { MaximumRetryAttempts: INBOX_KAFKA_CONSUMER_DEFAULTS.retryAttempts });
 * ```
 */
export const INBOX_KAFKA_CONSUMER_DEFAULTS = {
  handler: INBOX_CONSUMER_DEFAULTS.handler,
  timeout: INBOX_CONSUMER_DEFAULTS.timeout,
  memorySize: INBOX_CONSUMER_DEFAULTS.memorySize,
  logRetention: INBOX_CONSUMER_DEFAULTS.logRetention,
  metricsNamespace: INBOX_CONSUMER_DEFAULTS.metricsNamespace,
  duplicateRateThreshold: INBOX_CONSUMER_DEFAULTS.duplicateRateThreshold,
  failedRateThreshold: INBOX_CONSUMER_DEFAULTS.failedRateThreshold,
  invocationsPerAcu: INBOX_CONSUMER_DEFAULTS.invocationsPerAcu,
  /** Lambda's default for Kafka. */
  batchSize: 100,
  /** No record is skipped: one written before the mapping existed is read, one already applied is a duplicate. */
  startingPosition: lambda.StartingPosition.TRIM_HORIZON,
  /** Lambda's default and the cheapest: provisioned mode bills the minimum around the clock. */
  minimumPollers: 1,
  /** AWS: a Kafka event poller handles up to 5 MB/s or up to 5 concurrent invocations. */
  invocationsPerPoller: 5,
  /** The cap Lambda itself applies to infinite retries with an on-failure destination. */
  retryAttempts: 10,
  /** 21 days: a topic at Kafka's default 7 days plus the on-failure queue's 14. */
  inboxRetention: INBOX_CONSUMER_DEFAULTS.inboxRetention,
  /** The longest SQS allows, so a failure notice waits as long as it can for someone to replay it. */
  onFailureRetention: INBOX_CONSUMER_DEFAULTS.deadLetterRetention,
  offsetLagThreshold: 10_000,
  /** The shortest function timeout: the runtime's deadline margin plus one claim's lock wait. */
  minimumTimeout: Duration.millis(TIME_DEFAULTS.deadlineMarginMs + TIME_DEFAULTS.lockTimeoutMs),
} as const;

/** Lambda's bounds for a Kafka event source (API_ProvisionedPollerConfig, kafka-retry-configurations). */
export const KAFKA_LIMITS = {
  batchSize: { min: 1, max: 10_000 },
  minimumPollers: { min: 1, max: 200 },
  maximumPollers: { min: 1, max: 2000 },
  /** Ours: at least 5 attempts in all. Lambda allows 0 to 10,000, or -1 for infinite. */
  retryAttempts: { min: 4, max: 10_000 },
  maxRecordAgeSeconds: { min: 60, max: 604_800 },
} as const;

/** The kinds of on-failure destination Lambda offers a Kafka event source. */
export type OnFailureKind = 'sqs' | 'sns' | 's3' | 'kafka' | 'other';

/** What the construct knows of the on-failure destination at synth time. */
export interface OnFailureFacts {
  readonly kind: OnFailureKind;
  /** Whether the construct makes it (the default SQS queue). */
  readonly madeHere: boolean;
  /** An SQS queue given as `SqsDlq`, when one is. */
  readonly queue: sqs.IQueue | undefined;
  /** Whether an SQS queue or SNS topic is FIFO, which Lambda does not deliver to. */
  readonly fifo: boolean;
  /** An SQS queue's retention, when it can be read; `undefined` otherwise. */
  readonly retention: Duration | undefined;
  /** A `KafkaDlq` topic, without `kafka://`. */
  readonly kafkaTopic: string | undefined;
}

/**
 * The props with every default applied and what can be known about the on-failure destination,
 * which the rules judge before anything is built.
 */
export interface InboxKafkaConsumerSettings {
  readonly props: InboxKafkaConsumerProps;
  readonly handler: string;
  readonly timeout: Duration;
  readonly memorySize: number;
  readonly logRetention: logs.RetentionDays;
  readonly batchSize: number;
  readonly startingPosition: lambda.StartingPosition;
  readonly consumerGroupId: string;
  /** `undefined` when provisioned mode was turned off (`provisionedPollers: false`). */
  readonly provisionedPollers: lambda.ProvisionedPollerConfig | undefined;
  readonly retryAttempts: number;
  readonly bisectBatchOnError: boolean;
  readonly topicRetention: Duration;
  readonly inboxRetention: Duration;
  readonly serviceName: string;
  readonly metricsNamespace: string;
  readonly duplicateRateThreshold: number;
  readonly failedRateThreshold: number;
  readonly offsetLagThreshold: number;
  readonly secret: secretsmanager.ISecret | undefined;
  readonly onFailure: OnFailureFacts;
  /**
   * The longest a record can be delivered or replayed: the topic's retention plus the on-failure
   * queue's, when that can be read (otherwise the topic's alone).
   */
  readonly longestRecordLife: Duration;
}

const stripKafkaScheme = (topic: string): string => (topic.startsWith('kafka://') ? topic.slice('kafka://'.length) : topic);

/**
 * What can be read of an on-failure destination: the CDK's destination classes keep their target
 * in a private field, read here the way `clusterSecret` reads a cluster's secret.
 *
 * @example
 * ```ts
 * onFailureFacts(new SqsDlq(queue)).retention?.toDays() // 14 for a queue of this app kept 14 days
 * ```
 */
export function onFailureFacts(destination: lambda.IEventSourceDlq | undefined): OnFailureFacts {
  const none = { madeHere: false, queue: undefined, fifo: false, retention: undefined, kafkaTopic: undefined };
  if (destination === undefined) {
    return { ...none, kind: 'sqs', madeHere: true, retention: INBOX_KAFKA_CONSUMER_DEFAULTS.onFailureRetention };
  }
  if (destination instanceof sources.SqsDlq) {
    const queue = Reflect.get(destination, 'queue') as sqs.IQueue | undefined;
    if (queue === undefined) return { ...none, kind: 'sqs' };
    const facts = queueFacts(queue);
    return { ...none, kind: 'sqs', queue, fifo: facts.fifo, retention: facts.retention };
  }
  if (destination instanceof sources.SnsDlq) {
    const topic = Reflect.get(destination, 'topic') as sns.ITopic | undefined;
    return { ...none, kind: 'sns', fifo: topic?.fifo === true };
  }
  if (destination instanceof sources.S3OnFailureDestination) return { ...none, kind: 's3' };
  if (destination instanceof sources.KafkaDlq) {
    const topic = Reflect.get(destination, 'topicName') as string | undefined;
    return { ...none, kind: 'kafka', kafkaTopic: topic === undefined ? undefined : stripKafkaScheme(topic) };
  }
  return { ...none, kind: 'other' };
}

/** 2 invocations per ACU at 5 invocations per poller, at least 1 poller; no cap when the capacity is unknown. */
function maximumPollersFor(clusterMaxCapacity: number | undefined): number | undefined {
  if (clusterMaxCapacity === undefined || !Number.isFinite(clusterMaxCapacity)) return undefined;
  const { invocationsPerAcu, invocationsPerPoller } = INBOX_KAFKA_CONSUMER_DEFAULTS;
  const pollers = Math.floor((clusterMaxCapacity * invocationsPerAcu) / invocationsPerPoller);
  return Math.min(KAFKA_LIMITS.maximumPollers.max, Math.max(KAFKA_LIMITS.maximumPollers.min, pollers));
}

function provisionedPollersOf(props: InboxKafkaConsumerProps): lambda.ProvisionedPollerConfig | undefined {
  if (props.provisionedPollers === false) return undefined;
  const given = props.provisionedPollers ?? {};
  return {
    ...given,
    minimumPollers: given.minimumPollers ?? INBOX_KAFKA_CONSUMER_DEFAULTS.minimumPollers,
    maximumPollers: given.maximumPollers ?? maximumPollersFor(props.clusterMaxCapacity),
  };
}

/**
 * Applies the defaults to the props of the consumer `scope` is about to become and gathers what
 * the rules need.
 *
 * @example
 * ```ts
 * resolveKafkaSettings(props, this).longestRecordLife.toDays() // 21 for a 7-day topic and the default queue
 * ```
 */
export function resolveKafkaSettings(props: InboxKafkaConsumerProps, scope: Construct): InboxKafkaConsumerSettings {
  const defaults = INBOX_KAFKA_CONSUMER_DEFAULTS;
  const onFailure = onFailureFacts(props.onFailure);
  const longestRecordLife = Duration.seconds(props.topicRetention.toSeconds({ integral: false }) + (onFailure.retention?.toSeconds() ?? 0));
  return {
    props,
    handler: props.handler ?? defaults.handler,
    timeout: props.timeout ?? defaults.timeout,
    memorySize: props.memorySize ?? defaults.memorySize,
    logRetention: props.logRetention ?? defaults.logRetention,
    batchSize: props.batchSize ?? defaults.batchSize,
    startingPosition: props.startingPosition ?? defaults.startingPosition,
    consumerGroupId: props.consumerGroupId ?? Names.uniqueResourceName(scope, { maxLength: 200, separator: '-' }),
    provisionedPollers: provisionedPollersOf(props),
    retryAttempts: props.retryAttempts ?? defaults.retryAttempts,
    bisectBatchOnError: props.bisectBatchOnError ?? false,
    topicRetention: props.topicRetention,
    inboxRetention: props.inboxRetention ?? defaults.inboxRetention,
    serviceName: props.serviceName ?? scope.node.id,
    metricsNamespace: props.metricsNamespace ?? defaults.metricsNamespace,
    duplicateRateThreshold: props.duplicateRateThreshold ?? defaults.duplicateRateThreshold,
    failedRateThreshold: props.failedRateThreshold ?? defaults.failedRateThreshold,
    offsetLagThreshold: props.offsetLagThreshold ?? defaults.offsetLagThreshold,
    secret: props.secret ?? clusterSecret(props.cluster),
    onFailure,
    longestRecordLife,
  };
}
