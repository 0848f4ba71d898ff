import { Duration, Names } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { AWS_LIMITS } from '../../functions/inbox/aws-limits.js';
import { invocationsFor, resolveCommonSettings } from '../consumer/consumer-settings.js';
import type { InboxConsumerSettings } from '../consumer/consumer-settings.js';
import type { InboxKafkaConsumerProps } from './inbox-kafka-consumer-props.js';
import { onFailureFacts } from './on-failure-destination.js';
import type { OnFailureFacts } from './on-failure-destination.js';

/**
 * Every default of `InboxKafkaConsumer` of its own; the shared ones are `CONSUMER_DEFAULTS`.
 *
 * @example
 * ```ts
 * template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { MaximumRetryAttempts: KAFKA_DEFAULTS.retryAttempts });
 * ```
 */
export const KAFKA_DEFAULTS = {
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
  offsetLagThreshold: 10_000,
} as const;

/**
 * The bounds an `InboxKafkaConsumer` holds its settings to: Lambda's (`AWS_LIMITS.lambdaKafka`),
 * but for the retries.
 */
export const KAFKA_LIMITS = {
  ...AWS_LIMITS.lambdaKafka,
  /** Ours: at least 5 attempts in all. Lambda allows 0 to 10,000, or -1 for infinite. */
  retryAttempts: { min: 4, max: AWS_LIMITS.lambdaKafka.retryAttempts.max },
} as const;

/**
 * The props with every default applied and what can be known about the on-failure destination,
 * which the rules judge before anything is built.
 */
export interface KafkaSettings extends InboxConsumerSettings {
  readonly props: InboxKafkaConsumerProps;
  readonly batchSize: number;
  readonly startingPosition: lambda.StartingPosition;
  readonly consumerGroupId: string;
  /** `undefined` when provisioned mode was turned off (`provisionedPollers: false`). */
  readonly provisionedPollers: lambda.ProvisionedPollerConfig | undefined;
  readonly retryAttempts: number;
  readonly bisectBatchOnError: boolean;
  readonly topicRetention: Duration;
  readonly offsetLagThreshold: number;
  readonly onFailure: OnFailureFacts;
  /**
   * The longest a record can come back after its first delivery: its life in the topic, then,
   * written back from the on-failure destination (a redrive), a second one there under a new
   * offset. A notice (SQS, SNS) points into the topic, so the records it names can be written back
   * only while the topic holds them: twice the topic's retention. A destination that holds the
   * records (Kafka, S3) adds how long it keeps them, which the construct cannot read (0 here, with
   * a warning).
   */
  readonly longestRecordLife: Duration;
}

/** 2 invocations per ACU at 5 invocations per poller, at least 1 poller; no cap when the capacity is unknown. */
function maximumPollersFor(clusterMaxCapacity: number | undefined): number | undefined {
  const invocations = invocationsFor(clusterMaxCapacity);
  if (invocations === undefined) return undefined;
  const pollers = Math.floor(invocations / KAFKA_DEFAULTS.invocationsPerPoller);
  return Math.min(KAFKA_LIMITS.maximumPollers.max, Math.max(KAFKA_LIMITS.maximumPollers.min, pollers));
}

function provisionedPollersOf(props: InboxKafkaConsumerProps, clusterMaxCapacity: number | undefined): lambda.ProvisionedPollerConfig | undefined {
  if (props.provisionedPollers === false) return undefined;
  const given = props.provisionedPollers ?? {};
  return {
    ...given,
    minimumPollers: given.minimumPollers ?? KAFKA_DEFAULTS.minimumPollers,
    maximumPollers: given.maximumPollers ?? maximumPollersFor(clusterMaxCapacity),
  };
}

/**
 * Applies the defaults to the props of the consumer `consumer` is about to become, and gathers
 * what the rules need.
 *
 * @example
 * ```ts
 * resolveKafkaSettings(props, this).longestRecordLife.toDays() // 14 for a 7-day topic and the default queue
 * ```
 */
export function resolveKafkaSettings(props: InboxKafkaConsumerProps, consumer: Construct): KafkaSettings {
  const onFailure = onFailureFacts(props.onFailure);
  const topic = props.topicRetention.toSeconds({ integral: false });
  const common = resolveCommonSettings(props, consumer);
  return {
    ...common,
    props,
    batchSize: props.batchSize ?? KAFKA_DEFAULTS.batchSize,
    startingPosition: props.startingPosition ?? KAFKA_DEFAULTS.startingPosition,
    consumerGroupId: props.consumerGroupId ?? Names.uniqueResourceName(consumer, { maxLength: 200, separator: '-' }),
    provisionedPollers: provisionedPollersOf(props, common.clusterMaxCapacity),
    retryAttempts: props.retryAttempts ?? KAFKA_DEFAULTS.retryAttempts,
    bisectBatchOnError: props.bisectBatchOnError ?? false,
    topicRetention: props.topicRetention,
    offsetLagThreshold: props.offsetLagThreshold ?? KAFKA_DEFAULTS.offsetLagThreshold,
    onFailure,
    longestRecordLife: Duration.seconds(2 * topic),
  };
}
