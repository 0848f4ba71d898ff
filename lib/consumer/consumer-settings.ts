import { Duration } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as rds from 'aws-cdk-lib/aws-rds';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { AWS_LIMITS } from '../../functions/inbox/aws-limits.js';
import { METRICS_SCHEMA, TIME_DEFAULTS } from '../../functions/inbox/contract.js';
import { resolveOutboxSettings, type OutboxSettings } from '../outbox/outbox-settings.js';
import type { InboxConsumerCommonProps } from './common-props.js';

/**
 * Every default the consumers share, in one place; each source's own are in its settings.
 *
 * @example
 * ```ts
 * template.hasResourceProperties('AWS::Lambda::Function', { Timeout: CONSUMER_DEFAULTS.timeout.toSeconds() });
 * ```
 */
export const CONSUMER_DEFAULTS = {
  handler: 'handler',
  timeout: Duration.seconds(30),
  memorySize: 256,
  logRetention: logs.RetentionDays.ONE_MONTH,
  /**
   * 25 days: the longest a message of the default SQS queues can come back is the queue's 4 days,
   * the DLQ's 14, and 4 more in the queue after a redrive (22 days); the 3 days on top cover a
   * daily cleanup that runs late or fails a day. A Kafka topic kept 7 days needs 14.
   */
  inboxRetention: Duration.days(25),
  metricsNamespace: METRICS_SCHEMA.defaultNamespace,
  duplicateRateThreshold: 0.1,
  /** Failures are transient (the runtime retries in place first): more than 1 in 20 is not noise. */
  failedRateThreshold: 0.05,
  /** Leaves 30 % of a dead-lettered message's time for someone to redrive it after the alarm. */
  deadLetterAgeThreshold: 0.7,
  /** Concurrent invocations per ACU of the cluster's maximum capacity (see `clusterMaxCapacity`). */
  invocationsPerAcu: 2,
  /** The longest SQS allows, so a dead-lettered message or failure notice waits as long as it can. */
  deadLetterRetention: Duration.seconds(AWS_LIMITS.sqs.retentionSeconds.max),
  /** The shortest function timeout: the runtime's deadline margin plus one claim's lock wait. */
  minimumTimeout: Duration.millis(TIME_DEFAULTS.deadlineMarginMs + TIME_DEFAULTS.lockTimeoutMs),
} as const;

/**
 * The common props with every default applied, which the shared rules judge; each source's
 * settings extend them.
 */
export interface InboxConsumerSettings {
  readonly props: InboxConsumerCommonProps;
  /** The cluster of `database`, or the one given; `undefined` when neither is (refused). */
  readonly cluster: rds.IDatabaseCluster | undefined;
  /** The database of `database`, or the one given; `undefined` when neither is (refused). */
  readonly databaseName: string | undefined;
  /** `clusterMaxCapacity`, else what `database` knows of the cluster's capacity. */
  readonly clusterMaxCapacity: number | undefined;
  readonly handler: string;
  readonly timeout: Duration;
  readonly memorySize: number;
  readonly logRetention: logs.RetentionDays;
  readonly inboxRetention: Duration;
  readonly serviceName: string;
  readonly metricsNamespace: string;
  readonly duplicateRateThreshold: number;
  readonly failedRateThreshold: number;
  readonly deadLetterAgeThreshold: number;
  /**
   * The secret given, or without `database` the cluster's; `undefined` with `database` (whose role's
   * secret the consumer gets when it attaches) and for a cluster that carries none the construct can
   * see (an imported cluster).
   */
  readonly secret: secretsmanager.ISecret | undefined;
  /** The outbox with its defaults; `undefined` for a consumer without one. */
  readonly outbox: OutboxSettings | undefined;
}

/**
 * The secret a cluster carries: `IDatabaseCluster` declares none, but `DatabaseClusterBase`, the
 * base of every cluster class (made, restored from a snapshot or imported), does; an imported
 * cluster's is undefined.
 *
 * @example
 * ```ts
 * const secret = props.secret ?? clusterSecret(props.cluster); // undefined for an imported cluster
 * ```
 */
export function clusterSecret(cluster: rds.IDatabaseCluster): secretsmanager.ISecret | undefined {
  return cluster instanceof rds.DatabaseClusterBase ? cluster.secret : undefined;
}

/**
 * The invocations a cluster of `clusterMaxCapacity` ACUs takes from its consumers (2 per ACU);
 * `undefined` when the capacity is unknown.
 *
 * @example
 * ```ts
 * invocationsFor(2.5) // 5
 * ```
 */
export function invocationsFor(clusterMaxCapacity: number | undefined): number | undefined {
  if (clusterMaxCapacity === undefined || !Number.isFinite(clusterMaxCapacity)) return undefined;
  return Math.floor(clusterMaxCapacity * CONSUMER_DEFAULTS.invocationsPerAcu);
}

/**
 * Applies the shared defaults to the props of the consumer `consumer` is about to become.
 *
 * @example
 * ```ts
 * resolveCommonSettings(props, this).inboxRetention.toDays() // 25 unless given
 * ```
 */
export function resolveCommonSettings(props: InboxConsumerCommonProps, consumer: Construct): InboxConsumerSettings {
  const defaults = CONSUMER_DEFAULTS;
  const cluster = props.database?.cluster ?? props.cluster;
  const serviceName = props.serviceName ?? consumer.node.id;
  return {
    props,
    cluster,
    databaseName: props.database?.databaseName ?? props.databaseName,
    clusterMaxCapacity: props.clusterMaxCapacity ?? props.database?.clusterMaxCapacity,
    handler: props.handler ?? defaults.handler,
    timeout: props.timeout ?? defaults.timeout,
    memorySize: props.memorySize ?? defaults.memorySize,
    logRetention: props.logRetention ?? defaults.logRetention,
    inboxRetention: props.inboxRetention ?? defaults.inboxRetention,
    serviceName,
    metricsNamespace: props.metricsNamespace ?? defaults.metricsNamespace,
    duplicateRateThreshold: props.duplicateRateThreshold ?? defaults.duplicateRateThreshold,
    failedRateThreshold: props.failedRateThreshold ?? defaults.failedRateThreshold,
    deadLetterAgeThreshold: props.deadLetterAgeThreshold ?? defaults.deadLetterAgeThreshold,
    secret: props.secret ?? (props.database === undefined && cluster !== undefined ? clusterSecret(cluster) : undefined),
    outbox: resolveOutboxSettings(props, consumer, serviceName),
  };
}
