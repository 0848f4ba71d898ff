import type { Duration } from 'aws-cdk-lib';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as rds from 'aws-cdk-lib/aws-rds';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { IInboxDatabase } from '../database/database-consumer.js';
import type { InboxOutboxProps } from '../outbox/outbox-props.js';
import type { InboxTracingProps } from './consumer-tracing.js';
import type { AlarmTargetProps } from '../shared/alarm-targets.js';

/**
 * What every inbox consumer takes, whatever its event source: the database, the function, the
 * inbox retention and the alarms. `InboxConsumerProps` (SQS) and `InboxKafkaConsumerProps` add
 * their source's settings. Only the database (`database`, or `cluster` and `databaseName`) and the
 * handler's entry are required here; every other setting defaults to what the inbox's guarantees need.
 *
 * @example
 * ```ts
 * const common: InboxConsumerCommonProps = { database: inboxDatabase, entry: 'functions/order-worker/index.ts', alarmTopic: alarms.topic };
 * new InboxConsumer(this, 'Orders', { ...common, queueProps: { fifo: true } });
 * ```
 */
export interface InboxConsumerCommonProps extends AlarmTargetProps {
  /**
   * The `InboxDatabase` the consumer runs against. It gives the function a database role of its
   * own (`databaseRole`) with what a consumer does on the kit's tables, a secret only this function may
   * read (rotated), the cluster and database in its environment, its concurrency cap from the
   * cluster's capacity, and a cleanup that keeps the consumer's rows its `inboxRetention`; the
   * function waits for the database's migrations. Give `database`, or `cluster` and `databaseName`
   * (and `secret`), not both.
   * @default none: `cluster` and `databaseName` are required
   */
  readonly database?: IInboxDatabase;

  /**
   * The name of the consumer's database role in its `database`: the name the project's migrations
   * grant their tables to (`GRANT SELECT, UPDATE ON orders TO order_worker`). 1 to 57 lower-case
   * letters, digits or _ (its twin adds `_clone`); roles belong to the whole cluster, so two
   * consumers of one cluster need two names.
   * @default the construct id in snake case (`OrderWorker`: `order_worker`)
   */
  readonly databaseRole?: string;

  /**
   * The Aurora cluster the handler reaches through the RDS Data API, when no `database` is given.
   * Its Data API is switched on by the grant if it was left unset; a cluster with
   * `enableDataApi: false` is refused.
   * @default the cluster of `database`
   */
  readonly cluster?: rds.IDatabaseCluster;

  /**
   * Without `database`: the secret `{ username, password }` of the function's own database role,
   * which the Data API signs in with. The function may read this secret and make the Data API calls
   * on the cluster, nothing more: IAM cannot tie rds-data calls to a secret, so being able to read
   * no other secret is what keeps it to its role. Grant the role only what the handler does, in a migration.
   * @default the role's secret of `database`; without one, the cluster's own secret
   * (`cluster.secret`), the owner's credentials, with a synth warning (an imported cluster has none)
   */
  readonly secret?: secretsmanager.ISecret;

  /**
   * The database that holds the inbox table, given to the handler as DATABASE_NAME, when no `database` is given.
   * @default the database of `database`
   */
  readonly databaseName?: string;

  /** Path of the handler's TypeScript file, bundled with esbuild. */
  readonly entry: string;

  /**
   * Exported name of the handler in `entry`.
   * @default 'handler'
   */
  readonly handler?: string;

  /**
   * Function timeout; at least 10 s, because the runtime starts no record in the last 5 s
   * (`deadlineMarginMs`) and a claim may wait 5 s on a lock (`lockTimeoutMs`). An SQS queue's
   * visibility timeout must be at least 6 times this (plus the batching window).
   * @default Duration.seconds(30)
   */
  readonly timeout?: Duration;

  /**
   * Function memory in MiB.
   * @default 256
   */
  readonly memorySize?: number;

  /**
   * Tracing of the function: X-Ray active tracing, the ADOT layer (see docs/tracing.md).
   * @default none: the kit's spans are no-ops until a tracer provider is registered
   */
  readonly tracing?: InboxTracingProps;

  /**
   * Extra environment variables for the handler. The construct's own (CLUSTER_ARN, SECRET_ARN,
   * DATABASE_NAME, POWERTOOLS_*) win over these.
   * @default none
   */
  readonly environment?: Record<string, string>;

  /**
   * Retention of the function's log group.
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;

  /**
   * The cluster's Aurora Serverless v2 maximum capacity in ACUs (0.5 to 256), from which the
   * event source's concurrency cap is derived (an SQS consumer's `maxConcurrency`, a Kafka
   * consumer's `maximumPollers`): the construct cannot read it from an `IDatabaseCluster`. Two
   * invocations per ACU, 20 transactions at the runtime's default concurrency of 10, stay well
   * under what a cluster accepts: Aurora sizes max_connections from the maximum ACU (about 190 for
   * a cluster of up to 1 ACU, 2,000 for up to 16 ACU when it may scale to 0), and each ACU brings
   * only about 2 GiB of memory and its share of CPU for the transactions themselves. The Data API
   * publishes no connection limit of its own. The caps of all consumers of one cluster are summed
   * at synth time, with a warning when together they pass 2 per ACU.
   * @default the capacity `database` knows of; otherwise none: no cap, with a synth warning
   */
  readonly clusterMaxCapacity?: number;

  /**
   * How long the inbox keeps a consumed_message row (what the cleanup's retention must be at
   * least). It must outlast every delivery a message can still have, a redrive's included, or a
   * late copy finds no claim and is applied again; each source refuses a shorter one: an SQS
   * consumer needs the queue's retention plus the DLQ's plus the queue's again (a redriven message
   * starts a second life in the queue), a Kafka consumer twice the topic's retention (a record
   * written back to the topic starts a second life there), plus how long a Kafka or S3 on-failure
   * destination keeps the record.
   * @default Duration.days(25) (the default SQS queues' 4 + 14 + 4 days, and 3 to spare)
   */
  readonly inboxRetention?: Duration;

  /**
   * The consumer's name: the consumer_name its function's rows are written under (INBOX_CONSUMER,
   * the default of the handler's `consumer` option, which may not name another), the rows its
   * outbox relay sends, the `service` dimension of the metrics its alarms read
   * (POWERTOOLS_SERVICE_NAME) and the service in its logs.
   * @default the construct id
   */
  readonly serviceName?: string;

  /**
   * POWERTOOLS_METRICS_NAMESPACE: the CloudWatch namespace of the outcome metrics.
   * @default 'SqsInbox'
   */
  readonly metricsNamespace?: string;

  /**
   * Share of duplicates among processed plus duplicate records (0 to 1) at which the duplicate
   * rate alarm fires.
   * @default 0.1
   */
  readonly duplicateRateThreshold?: number;

  /**
   * Share of failed records among processed, duplicate and failed ones (0 to 1) at which the
   * failed rate alarm fires; it looks at 5-minute periods and fires on 2 of 3.
   * @default 0.05
   */
  readonly failedRateThreshold?: number;

  /**
   * Share (0 to 1) of the time a message is kept in the dead-letter queue (an SQS consumer's DLQ, a
   * Kafka consumer's on-failure queue) at which the alarm on its oldest message fires, so that it
   * is redriven or looked at before SQS drops it. A standard DLQ keeps a message's first enqueue
   * time, so there the time kept is the DLQ's retention less the queue's.
   * @default 0.7
   */
  readonly deadLetterAgeThreshold?: number;

  /**
   * The consumer's outbox: the targets its handler's messages go to (`{ targets: { shipped: queue } }`),
   * and its relay. The function may send to those targets alone (`sqs:SendMessage`, `sns:Publish`,
   * `events:PutEvents` on their ARNs, and a customer managed key's GenerateDataKey and Decrypt) and
   * finds them in INBOX_OUTBOX_TARGETS (`outboxTargetsFromEnv()`); a relay function, on a schedule,
   * sends what the invocations left, as a database role of its own; alarms watch the oldest row left,
   * rows that failed, and the relay.
   * @default none: no outbox, no relay
   */
  readonly outbox?: InboxOutboxProps;
}
