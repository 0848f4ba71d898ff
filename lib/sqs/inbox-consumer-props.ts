import type { Duration } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as rds from 'aws-cdk-lib/aws-rds';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';

/**
 * What an `InboxConsumer` takes. Only the cluster, the database name and the handler's entry are
 * required; every other setting defaults to what the inbox's guarantees need.
 *
 * @example
 * ```ts
 * const props: InboxConsumerProps = {
 *   cluster, databaseName: 'inbox', entry: 'functions/order-worker/index.ts',
 *   queueProps: { fifo: true }, inboxRetention: Duration.days(21),
 * };
 * ```
 */
export interface InboxConsumerProps {
  /**
   * The Aurora cluster the handler reaches through the RDS Data API. Its Data API is switched on
   * by the grant if it was left unset; a cluster with `enableDataApi: false` is refused.
   */
  readonly cluster: rds.IDatabaseCluster;

  /**
   * The secret `{ username, password }` of the function's own database role, which the Data API
   * signs in with. The function may read this secret and make the Data API calls on the cluster,
   * nothing more: IAM cannot tie rds-data calls to a secret, so being able to read no other secret
   * is what keeps it to its role. Grant the role only what the handler does, in a migration.
   * @default the cluster's own secret (`cluster.secret`), the owner's credentials, with a synth
   * warning; an imported cluster has none, so pass one
   */
  readonly secret?: secretsmanager.ISecret;

  /** The database that holds the inbox table, given to the handler as DATABASE_NAME. */
  readonly databaseName: string;

  /** Path of the handler's TypeScript file, bundled with esbuild. */
  readonly entry: string;

  /**
   * Exported name of the handler in `entry`.
   * @default 'handler'
   */
  readonly handler?: string;

  /**
   * Function timeout. The queue's visibility timeout must be at least 6 times this (plus the
   * batching window).
   * @default Duration.seconds(30)
   */
  readonly timeout?: Duration;

  /**
   * Function memory in MiB.
   * @default 256
   */
  readonly memorySize?: number;

  /**
   * Extra environment variables for the handler. The construct's own (CLUSTER_ARN, SECRET_ARN,
   * DATABASE_NAME, POWERTOOLS_*) win over these.
   * @default none
   */
  readonly environment?: Record<string, string>;

  /**
   * An existing queue to consume. Its settings are checked where the CDK can read them (a queue
   * made in this app, which must have a redrive policy); an imported queue's cannot be read at
   * synth time, and the construct warns that its redrive policy is unchecked. Give `queue` or
   * `queueProps`, not both.
   * @default a new queue made from `queueProps`
   */
  readonly queue?: sqs.IQueue;

  /**
   * Settings of the queue the construct makes. `fifo: true` makes a FIFO queue (and a FIFO DLQ).
   * The DLQ is set with `deadLetterQueue` and `maxReceiveCount`, not here. Encryption cannot be
   * turned off (`QueueEncryption.UNENCRYPTED`) nor plain HTTP allowed (`enforceSSL: false`).
   * @default a standard queue with SQS-managed encryption, a TLS-only policy, a visibility timeout
   * of 6 x the function timeout plus the batching window, and the SQS default retention (4 days)
   */
  readonly queueProps?: sqs.QueueProps;

  /**
   * The dead-letter queue. Must be of the queue's kind (FIFO or standard).
   * @default a new queue of the queue's kind with SQS-managed encryption, a TLS-only policy and
   * 14 days' retention; none when an existing `queue` is given (it keeps its own redrive policy)
   */
  readonly deadLetterQueue?: sqs.IQueue;

  /**
   * Receives before a message moves to the DLQ; at least 5, so that throttling and transient
   * failures do not dead-letter a good message.
   * @default 5
   */
  readonly maxReceiveCount?: number;

  /**
   * Records per invocation: at most 10 on FIFO; up to 10,000 on standard (over 10 needs a
   * batching window).
   * @default 10
   */
  readonly batchSize?: number;

  /**
   * How long Lambda gathers records before invoking; standard queues only, at most 5 minutes.
   * @default no batching window
   */
  readonly maxBatchingWindow?: Duration;

  /**
   * Most concurrent invocations the event source starts (2 to 1000; on FIFO, also at most one per
   * message group). Each invocation runs up to the runtime's `concurrency` (10 by default) Data API
   * transactions at once, and each holds a database connection while it runs, so the cap is what
   * keeps a burst of messages from exhausting the cluster's connections and CPU.
   * @default 2 per ACU of `clusterMaxCapacity` (at least 2, at most 1000); no cap, with a synth
   * warning, when `clusterMaxCapacity` is not given
   */
  readonly maxConcurrency?: number;

  /**
   * The cluster's Aurora Serverless v2 maximum capacity in ACUs (0.5 to 256), from which the default
   * `maxConcurrency` is derived: the construct cannot read it from an `IDatabaseCluster`. Two
   * invocations per ACU, 20 transactions at the runtime's default concurrency of 10, stay well
   * under what a cluster accepts: Aurora sizes max_connections from the maximum ACU (about 190 for
   * a cluster of up to 1 ACU, 2,000 for up to 16 ACU when it may scale to 0), and each ACU brings
   * only about 2 GiB of memory and its share of CPU for the transactions themselves. The Data API
   * publishes no connection limit of its own. The ceiling of 1000 is the most SQS allows; with at
   * most 256 ACU it is never reached.
   * @default none (no cap, see `maxConcurrency`)
   */
  readonly clusterMaxCapacity?: number;

  /**
   * How long the inbox keeps a consumed_message row (the cleanup's retention). Must be at least
   * the queue's message retention plus the DLQ's: a message can wait out the first and then the
   * second (a FIFO DLQ resets the enqueue time; a redrive starts it again), and a redelivery that
   * finds no claim applies its effect again.
   * @default Duration.days(21) (the default queue's 4 days plus the default DLQ's 14, and 3 to spare)
   */
  readonly inboxRetention?: Duration;

  /**
   * POWERTOOLS_SERVICE_NAME: the `service` dimension of the outcome metrics and the service in logs.
   * @default the construct id
   */
  readonly serviceName?: string;

  /**
   * POWERTOOLS_METRICS_NAMESPACE: the CloudWatch namespace of the outcome metrics.
   * @default 'SqsInbox'
   */
  readonly metricsNamespace?: string;

  /**
   * Age of the oldest message at which the backlog alarm fires.
   * @default Duration.minutes(15)
   */
  readonly oldestMessageAgeThreshold?: Duration;

  /**
   * Share of duplicates among processed plus duplicate messages (0 to 1) at which the duplicate
   * rate alarm fires.
   * @default 0.1
   */
  readonly duplicateRateThreshold?: number;

  /**
   * Share of failed messages among processed, duplicate and failed ones (0 to 1) at which the
   * failed rate alarm fires; it looks at 5-minute periods and fires on 2 of 3.
   * @default 0.05
   */
  readonly failedRateThreshold?: number;

  /**
   * An SNS topic every alarm of the construct notifies, on top of `alarmActions`. A topic encrypted
   * with KMS needs a customer managed key whose policy lets `cloudwatch.amazonaws.com` use it
   * (kms:Decrypt, kms:GenerateDataKey*) and a topic policy that lets it publish: CloudWatch cannot
   * use the AWS managed key `alias/aws/sns`. `AlarmTopic` makes such a topic.
   * @default none: the alarms notify only `alarmActions`
   */
  readonly alarmTopic?: sns.ITopic;

  /**
   * Actions every alarm of the construct takes.
   * @default none
   */
  readonly alarmActions?: cloudwatch.IAlarmAction[];

  /**
   * Retention of the function's log group.
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;

  /**
   * Reject (record with its reason and acknowledge, never apply) every message that has no
   * `idempotency-key` message attribute. A DLQ redrive gives a message a new messageId and, from a
   * FIFO DLQ, a new MessageDeduplicationId, so a message keyed by either would be applied again
   * after a redrive; the attribute is the only key that survives. Sets INBOX_REQUIRE_KEY_ATTRIBUTE,
   * the default of the runtime's `requireKeyAttribute` (a handler with its own `key` is not affected).
   * @default false: such messages are applied, counted as `keyFallback` and warned of once per cold start
   */
  readonly requireIdempotencyKey?: boolean;
}
