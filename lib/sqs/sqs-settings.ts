import { Duration } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { CONSUMER_DEFAULTS } from '../shared/consumer-defaults.js';
import { invocationsFor, resolveCommonSettings } from '../consumer/consumer-settings.js';
import type { InboxConsumerSettings } from '../consumer/consumer-settings.js';
import { queueFacts, SQS_QUEUE_DEFAULTS } from '../consumer/queue-facts.js';
import type { QueueFacts } from '../consumer/queue-facts.js';
import type { InboxConsumerProps } from './inbox-consumer-props.js';

/**
 * Every default of `InboxConsumer` of its own; the shared ones are `CONSUMER_DEFAULTS`.
 *
 * @example
 * ```ts
 * template.hasResourceProperties('AWS::SQS::Queue', { RedrivePolicy: { maxReceiveCount: SQS_DEFAULTS.maxReceiveCount } });
 * ```
 */
export const SQS_DEFAULTS = {
  maxReceiveCount: 5,
  batchSize: 10,
  oldestMessageAgeThreshold: Duration.minutes(15),
  requireIdempotencyKey: false,
  /** AWS's advice for SQS event sources: visibility timeout at least 6 x the function timeout. */
  visibilityTimeoutFactor: 6,
} as const;

/** SQS's bounds on an event source's maximum concurrency. */
export const SQS_MAX_CONCURRENCY = { min: 2, max: 1000 } as const;

/**
 * The props with every default applied and what can be known about the queues, which the rules
 * judge before anything is built.
 */
export interface SqsSettings extends InboxConsumerSettings {
  readonly props: InboxConsumerProps;
  readonly fifo: boolean;
  readonly batchSize: number;
  readonly maxReceiveCount: number;
  readonly oldestMessageAgeThreshold: Duration;
  /** `maxConcurrency` as given, else derived from `clusterMaxCapacity`; `undefined` for no cap. */
  readonly maxConcurrency: number | undefined;
  readonly requireIdempotencyKey: boolean;
  /** 6 x the function timeout plus the batching window. */
  readonly requiredVisibilityTimeout: Duration;
  readonly queue: QueueFacts;
  /** `undefined` when there is no DLQ the construct knows of (an existing queue without `deadLetterQueue`). */
  readonly deadLetterQueue: QueueFacts | undefined;
  /**
   * The longest a message can stay redeliverable after its first delivery: the queue's retention,
   * the DLQ's, and the queue's again for the copy a redrive puts back, of those that can be read.
   */
  readonly longestMessageLife: Duration;
  /**
   * How long a message is sure to stay in the DLQ once there: a FIFO DLQ restarts its retention,
   * a standard one keeps the first enqueue time, so the queue's retention may be spent already.
   * `undefined` when the DLQ's retention cannot be read; not more than 0 when a standard DLQ keeps
   * messages no longer than the queue (a rule refuses that).
   */
  readonly deadLetterLife: Duration | undefined;
}

/** 2 invocations per ACU, within SQS's bounds; no cap when the capacity is unknown. */
function concurrencyFor(clusterMaxCapacity: number | undefined): number | undefined {
  const invocations = invocationsFor(clusterMaxCapacity);
  if (invocations === undefined) return undefined;
  return Math.min(SQS_MAX_CONCURRENCY.max, Math.max(SQS_MAX_CONCURRENCY.min, invocations));
}

const sum = (...durations: (Duration | undefined)[]): Duration =>
  Duration.seconds(durations.reduce((total, d) => total + (d?.toSeconds() ?? 0), 0));

function deadLetterLifeOf(queue: QueueFacts, deadLetterQueue: QueueFacts | undefined): Duration | undefined {
  if (deadLetterQueue?.retention === undefined) return undefined;
  if (queue.fifo) return deadLetterQueue.retention;
  return Duration.seconds(deadLetterQueue.retention.toSeconds() - (queue.retention?.toSeconds() ?? 0));
}

/**
 * Applies the defaults to the props of the consumer `consumer` is about to become, and gathers the
 * queue facts the rules need.
 *
 * @example
 * ```ts
 * resolveSqsSettings({ cluster, databaseName: 'inbox', entry }, this).requiredVisibilityTimeout.toSeconds() // 180
 * ```
 */
export function resolveSqsSettings(props: InboxConsumerProps, consumer: Construct): SqsSettings {
  const common = resolveCommonSettings(props, consumer);
  const window = props.maxBatchingWindow ?? Duration.seconds(0);
  const requiredVisibilityTimeout = Duration.seconds(common.timeout.toSeconds() * SQS_DEFAULTS.visibilityTimeoutFactor + window.toSeconds());
  const fifo = props.queue
    ? props.queue.fifo
    : props.queueProps?.fifo ?? props.queueProps?.queueName?.endsWith('.fifo') ?? false;
  const queue: QueueFacts = props.queue
    ? queueFacts(props.queue)
    : {
        fifo,
        visibilityTimeout: props.queueProps?.visibilityTimeout ?? requiredVisibilityTimeout,
        retention: props.queueProps?.retentionPeriod ?? SQS_QUEUE_DEFAULTS.retention,
        hasRedrivePolicy: true,
      };
  const deadLetterQueue: QueueFacts | undefined = props.deadLetterQueue
    ? queueFacts(props.deadLetterQueue)
    : props.queue
      ? undefined
      : { fifo, visibilityTimeout: undefined, retention: CONSUMER_DEFAULTS.deadLetterRetention, hasRedrivePolicy: false };
  return {
    ...common,
    props,
    fifo,
    batchSize: props.batchSize ?? SQS_DEFAULTS.batchSize,
    maxReceiveCount: props.maxReceiveCount ?? SQS_DEFAULTS.maxReceiveCount,
    oldestMessageAgeThreshold: props.oldestMessageAgeThreshold ?? SQS_DEFAULTS.oldestMessageAgeThreshold,
    maxConcurrency: props.maxConcurrency ?? concurrencyFor(common.clusterMaxCapacity),
    requireIdempotencyKey: props.requireIdempotencyKey ?? SQS_DEFAULTS.requireIdempotencyKey,
    requiredVisibilityTimeout,
    queue,
    deadLetterQueue,
    longestMessageLife: sum(queue.retention, deadLetterQueue?.retention, queue.retention),
    deadLetterLife: deadLetterLifeOf(queue, deadLetterQueue),
  };
}
