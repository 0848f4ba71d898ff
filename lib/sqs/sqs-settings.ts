import { Duration, Token } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as rds from 'aws-cdk-lib/aws-rds';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { InboxConsumerProps } from './inbox-consumer-props.js';

/**
 * Every default of `InboxConsumer`, in one place.
 *
 * @example
 * ```ts
 * expect(template.findResources('AWS::SQS::Queue')).toHaveLength(2); // maxReceiveCount: INBOX_CONSUMER_DEFAULTS.maxReceiveCount
 * ```
 */
export const INBOX_CONSUMER_DEFAULTS = {
  handler: 'handler',
  timeout: Duration.seconds(30),
  memorySize: 256,
  maxReceiveCount: 5,
  batchSize: 10,
  /**
   * 21 days: the longest a message of the default queues can stay redeliverable is the queue's 4
   * days plus the DLQ's 14 (18 days); the 3 days on top leave room for a redrive late in the DLQ's
   * life and for a daily cleanup that runs late or fails a day.
   */
  inboxRetention: Duration.days(21),
  metricsNamespace: 'SqsInbox',
  oldestMessageAgeThreshold: Duration.minutes(15),
  duplicateRateThreshold: 0.1,
  /** Failures are transient (the runtime retries in place first): more than 1 in 20 is not noise. */
  failedRateThreshold: 0.05,
  /** Concurrent invocations per ACU of the cluster's maximum capacity (see `clusterMaxCapacity`). */
  invocationsPerAcu: 2,
  logRetention: logs.RetentionDays.ONE_MONTH,
  requireIdempotencyKey: false,
  /** SQS's own default message retention, which a queue made without `retentionPeriod` gets. */
  queueRetention: Duration.days(4),
  /** The longest SQS allows, so a dead-lettered message waits as long as it can for a redrive. */
  deadLetterRetention: Duration.days(14),
  /** AWS's advice for SQS event sources: visibility timeout at least 6 x the function timeout. */
  visibilityTimeoutFactor: 6,
} as const;

/** SQS's default visibility timeout, which a queue made in this app without one has. */
const SQS_DEFAULT_VISIBILITY_TIMEOUT = Duration.seconds(30);

/** What the construct knows of a queue at synth time; `undefined` where it cannot tell. */
export interface QueueFacts {
  readonly fifo: boolean;
  readonly visibilityTimeout: Duration | undefined;
  readonly retention: Duration | undefined;
  /** Whether failing messages move to a DLQ after some receives. */
  readonly hasRedrivePolicy: boolean | undefined;
}

/** SQS's bounds on an event source's maximum concurrency. */
export const SQS_MAX_CONCURRENCY = { min: 2, max: 1000 } as const;

/**
 * The props with every default applied and what can be known about the queues, which the rules
 * judge before anything is built.
 */
export interface InboxConsumerSettings {
  readonly props: InboxConsumerProps;
  readonly fifo: boolean;
  readonly handler: string;
  readonly timeout: Duration;
  readonly memorySize: number;
  readonly batchSize: number;
  readonly maxReceiveCount: number;
  readonly inboxRetention: Duration;
  readonly serviceName: string;
  readonly metricsNamespace: string;
  readonly oldestMessageAgeThreshold: Duration;
  readonly duplicateRateThreshold: number;
  readonly failedRateThreshold: number;
  /** `maxConcurrency` as given, else derived from `clusterMaxCapacity`; `undefined` for no cap. */
  readonly maxConcurrency: number | undefined;
  readonly logRetention: logs.RetentionDays;
  readonly requireIdempotencyKey: boolean;
  readonly secret: secretsmanager.ISecret | undefined;
  /** 6 x the function timeout plus the batching window. */
  readonly requiredVisibilityTimeout: Duration;
  readonly queue: QueueFacts;
  /** `undefined` when there is no DLQ the construct knows of (an existing queue without `deadLetterQueue`). */
  readonly deadLetterQueue: QueueFacts | undefined;
  /**
   * The longest a message can stay redeliverable: the queue's retention plus the DLQ's, of those
   * that can be read; `undefined` when neither can.
   */
  readonly longestMessageLife: Duration | undefined;
}

/**
 * What can be read of a queue made elsewhere: a queue of this app exposes its CloudFormation
 * settings, an imported one only whether it is FIFO.
 *
 * @example
 * ```ts
 * queueFacts(new sqs.Queue(stack, 'Q', { visibilityTimeout: Duration.minutes(3) })).visibilityTimeout?.toSeconds() // 180
 * ```
 */
export function queueFacts(queue: sqs.IQueue): QueueFacts {
  const cfn = queue.node.defaultChild;
  if (!(cfn instanceof sqs.CfnQueue)) return { fifo: queue.fifo, visibilityTimeout: undefined, retention: undefined, hasRedrivePolicy: undefined };
  return {
    fifo: queue.fifo,
    visibilityTimeout: readSeconds(cfn.visibilityTimeout, SQS_DEFAULT_VISIBILITY_TIMEOUT),
    retention: readSeconds(cfn.messageRetentionPeriod, INBOX_CONSUMER_DEFAULTS.queueRetention),
    hasRedrivePolicy: cfn.redrivePolicy !== undefined,
  };
}

/**
 * The secret a cluster made in this app carries (`DatabaseCluster.secret`, `ServerlessCluster.secret`);
 * `IDatabaseCluster` itself does not declare one, and an imported cluster has none.
 *
 * @example
 * ```ts
 * const secret = props.secret ?? clusterSecret(props.cluster); // undefined for an imported cluster
 * ```
 */
export function clusterSecret(cluster: rds.IDatabaseCluster): secretsmanager.ISecret | undefined {
  const secret: unknown = Reflect.get(cluster, 'secret');
  const looksLikeSecret = typeof secret === 'object' && secret !== null && 'secretArn' in secret && 'grantRead' in secret;
  return looksLikeSecret ? (secret as secretsmanager.ISecret) : undefined;
}

/** 2 invocations per ACU, within SQS's bounds; no cap when the capacity is unknown. */
function concurrencyFor(clusterMaxCapacity: number | undefined): number | undefined {
  if (clusterMaxCapacity === undefined || !Number.isFinite(clusterMaxCapacity)) return undefined;
  const perAcu = Math.floor(clusterMaxCapacity * INBOX_CONSUMER_DEFAULTS.invocationsPerAcu);
  return Math.min(SQS_MAX_CONCURRENCY.max, Math.max(SQS_MAX_CONCURRENCY.min, perAcu));
}

function readSeconds(value: number | undefined, fallback: Duration): Duration | undefined {
  if (value === undefined) return fallback;
  return Token.isUnresolved(value) ? undefined : Duration.seconds(value);
}

/**
 * Applies the defaults to the props and gathers the queue facts the rules need.
 *
 * @example
 * ```ts
 * resolveSettings({ cluster, databaseName: 'inbox', entry }, 'Orders').requiredVisibilityTimeout.toSeconds() // 180
 * ```
 */
export function resolveSettings(props: InboxConsumerProps, id: string): InboxConsumerSettings {
  const defaults = INBOX_CONSUMER_DEFAULTS;
  const timeout = props.timeout ?? defaults.timeout;
  const window = props.maxBatchingWindow ?? Duration.seconds(0);
  const requiredVisibilityTimeout = Duration.seconds(timeout.toSeconds() * defaults.visibilityTimeoutFactor + window.toSeconds());
  const fifo = props.queue
    ? props.queue.fifo
    : props.queueProps?.fifo ?? props.queueProps?.queueName?.endsWith('.fifo') ?? false;
  const queue: QueueFacts = props.queue
    ? queueFacts(props.queue)
    : {
        fifo,
        visibilityTimeout: props.queueProps?.visibilityTimeout ?? requiredVisibilityTimeout,
        retention: props.queueProps?.retentionPeriod ?? defaults.queueRetention,
        hasRedrivePolicy: true,
      };
  const deadLetterQueue: QueueFacts | undefined = props.deadLetterQueue
    ? queueFacts(props.deadLetterQueue)
    : props.queue
      ? undefined
      : { fifo, visibilityTimeout: undefined, retention: defaults.deadLetterRetention, hasRedrivePolicy: false };
  const retentions = [queue.retention, deadLetterQueue?.retention].filter((d): d is Duration => d !== undefined);
  const longestMessageLife = retentions.length === 0 ? undefined : Duration.seconds(retentions.reduce((sum, d) => sum + d.toSeconds(), 0));
  return {
    props,
    fifo,
    handler: props.handler ?? defaults.handler,
    timeout,
    memorySize: props.memorySize ?? defaults.memorySize,
    batchSize: props.batchSize ?? defaults.batchSize,
    maxReceiveCount: props.maxReceiveCount ?? defaults.maxReceiveCount,
    inboxRetention: props.inboxRetention ?? defaults.inboxRetention,
    serviceName: props.serviceName ?? id,
    metricsNamespace: props.metricsNamespace ?? defaults.metricsNamespace,
    oldestMessageAgeThreshold: props.oldestMessageAgeThreshold ?? defaults.oldestMessageAgeThreshold,
    duplicateRateThreshold: props.duplicateRateThreshold ?? defaults.duplicateRateThreshold,
    failedRateThreshold: props.failedRateThreshold ?? defaults.failedRateThreshold,
    maxConcurrency: props.maxConcurrency ?? concurrencyFor(props.clusterMaxCapacity),
    logRetention: props.logRetention ?? defaults.logRetention,
    requireIdempotencyKey: props.requireIdempotencyKey ?? defaults.requireIdempotencyKey,
    secret: props.secret ?? clusterSecret(props.cluster),
    requiredVisibilityTimeout,
    queue,
    deadLetterQueue,
    longestMessageLife,
  };
}
