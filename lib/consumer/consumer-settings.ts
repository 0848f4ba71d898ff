import type { Duration } from 'aws-cdk-lib';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as rds from 'aws-cdk-lib/aws-rds';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { resolveOutboxSettings, type OutboxSettings } from '../outbox/outbox-settings.js';
import type { InboxConsumerCommonProps } from './common-props.js';
import { clusterSecret } from '../shared/cluster-secret.js';
import { CONSUMER_DEFAULTS } from '../shared/consumer-defaults.js';

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
