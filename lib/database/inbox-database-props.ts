import type { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as rds from 'aws-cdk-lib/aws-rds';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { AlarmTargetProps } from '../shared/alarm-targets.js';

/**
 * What an `InboxDatabase` takes. Every prop is optional: with none it makes an Aurora PostgreSQL
 * Serverless v2 cluster that pauses at 0 ACU, with the Data API on, and runs only the kit's own
 * migrations. Give `cluster` to use one of yours instead; the props of the cluster it makes
 * (`vpc`, `minCapacity`, `maxCapacity`, `autoPause`, `engineVersion`, `deletionProtection`,
 * `removalPolicy`, `backupRetention`) are then refused. Its alarms (the cleanup's) go to
 * `alarmTopic` and `alarmActions`.
 *
 * @example
 * ```ts
 * const props: InboxDatabaseProps = { cluster, migrations: 'migrations', alarmTopic: alarms.topic };
 * ```
 */
export interface InboxDatabaseProps extends AlarmTargetProps {
  /**
   * An Aurora PostgreSQL cluster of yours (Serverless v2 or provisioned, 13.11, 14.8, 15.3, 16.1,
   * 17.4 or later, which have the Data API). Its Data API is switched on if it was left unset; one
   * with `enableDataApi: false`, or another engine, is refused.
   * @default a new Aurora PostgreSQL Serverless v2 cluster with the Data API, encrypted, in a VPC of
   * its own (or `vpc`), scaling from `minCapacity` to `maxCapacity`
   */
  readonly cluster?: rds.IDatabaseCluster;

  /**
   * The secret of the cluster's owner (its master user), which the migrate function and each role
   * rotation's setSecret sign in with; nothing else may read it.
   * @default the cluster's own secret; an imported cluster has none, so pass one
   */
  readonly ownerSecret?: secretsmanager.ISecret;

  /**
   * The database on the cluster that holds the inbox and the project's tables.
   * @default 'inbox' for the cluster made here; for a cluster of yours, its `defaultDatabaseName`
   * when it was made in this app (an imported one must be given a name)
   */
  readonly databaseName?: string;

  /**
   * The cluster's Aurora Serverless v2 maximum capacity in ACUs, from which each consumer's
   * concurrency cap is derived (`clusterMaxCapacity` of the consumers).
   * @default `maxCapacity` of the cluster made here, or that of a cluster of yours made in this app;
   * none for an imported one
   */
  readonly clusterMaxCapacity?: number;

  /**
   * The VPC of the cluster made here (the functions stay outside it: the Data API needs no VPC).
   * @default a new VPC with isolated subnets in 2 AZs, no NAT gateway, rejected traffic logged
   */
  readonly vpc?: ec2.IVpc;

  /**
   * The smallest capacity of the cluster made here, in ACUs (0 to 256 in steps of 0.5); 0 lets it
   * pause after `autoPause` without connections (the first calls after a pause wait for it to
   * resume, which the kit's functions do).
   * @default 0
   */
  readonly minCapacity?: number;

  /**
   * The largest capacity of the cluster made here, in ACUs (1 to 256 in steps of 0.5).
   * @default 2
   */
  readonly maxCapacity?: number;

  /**
   * Idle time before the cluster made here pauses, when `minCapacity` is 0 (5 minutes to 24 hours).
   * @default Duration.minutes(5)
   */
  readonly autoPause?: Duration;

  /**
   * The engine version of the cluster made here, pinned: a newer aws-cdk-lib never upgrades it, and
   * its automatic minor version upgrades are off (with them on, AWS would move the cluster past the
   * version the template names, and the next deploy would ask for a downgrade).
   * @default AURORA_POSTGRES_VERSION (17.9)
   */
  readonly engineVersion?: rds.AuroraPostgresEngineVersion;

  /**
   * Whether the cluster made here refuses to be deleted.
   * @default true
   */
  readonly deletionProtection?: boolean;

  /**
   * What happens to the cluster made here when it leaves the stack.
   * @default RemovalPolicy.SNAPSHOT
   */
  readonly removalPolicy?: RemovalPolicy;

  /**
   * How long the automated backups of the cluster made here are kept.
   * @default Duration.days(7)
   */
  readonly backupRetention?: Duration;

  /**
   * The folder of the project's own migrations, `NNNN_name.sql` files applied in number order after
   * the kit's own, in the same run (a misnamed file is refused at synth). They may grant the
   * project's tables to the consumers' roles (`GRANT SELECT, UPDATE ON orders TO order_worker`),
   * which exist before they run.
   * @default none: the kit's migrations only
   */
  readonly migrations?: string;

  /**
   * How long the cleanup keeps a consumed_message row: at least the `inboxRetention` of every
   * consumer attached (refused when shorter), and at least a day. The cleanup deletes the rows of
   * every consumer in the database by this one age.
   * @default the longest `inboxRetention` of the consumers attached (25 days when none is)
   */
  readonly cleanupRetention?: Duration;

  /**
   * How long the cleanup keeps an outbox row once it was dispatched (rows not yet dispatched, and
   * rows that failed for good, are never deleted), and idle FIFO groups; at least a minute.
   * @default none: the cleanup leaves the outbox alone
   */
  readonly outboxRetention?: Duration;

  /**
   * How long the cleanup keeps a kept message (what a consumer rejected, a collision's body) for an
   * operator to read and replay.
   * @default Duration.days(90)
   */
  readonly keptRetention?: Duration;

  /**
   * When the cleanup runs: at least once a day (its alarms count days). Each run wakes a paused cluster.
   * @default events.Schedule.expression('cron(17 3 * * ? *)'), daily at 03:17 UTC
   */
  readonly cleanupSchedule?: events.Schedule;

  /**
   * Rows the cleanup deletes per statement (1 to 10,000).
   * @default 1000
   */
  readonly cleanupBatchSize?: number;

  /**
   * The cleanup's database role (DELETE on consumed_message and what picking old rows needs).
   * @default 'inbox_cleanup'
   */
  readonly cleanupRole?: string;

  /**
   * The operator's database role, the one `npx sqs-inbox` signs in as (through `grantOperator`):
   * it reads the kit's tables and changes what the operator's commands change (a kept message's
   * replay, a failed outbox row's retry, the audit rows), and nothing of the project's.
   * @default 'inbox_operator'
   */
  readonly operatorRole?: string;

  /**
   * Time between rotations of each role secret (alternating users, through the Data API).
   * @default Duration.days(30)
   */
  readonly rotateRoleSecretsAfter?: Duration;

  /**
   * POWERTOOLS_METRICS_NAMESPACE of the cleanup, whose metrics its alarms watch.
   * @default 'SqsInbox'
   */
  readonly metricsNamespace?: string;

  /**
   * Retention of the log groups of the construct's functions (migrate, cleanup, rotations).
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;
}
