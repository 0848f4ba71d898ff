import type { Duration } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as rds from 'aws-cdk-lib/aws-rds';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
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
   * by the grant if it was left unset; a cluster with `enableDataApi: false` is refused by the CDK.
   */
  readonly cluster: rds.IDatabaseCluster;

  /**
   * The secret holding the database credentials the Data API signs in with.
   * @default the cluster's own secret (`cluster.secret`); an imported cluster has none, so pass one
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
   * made in this app); an imported queue's cannot be read at synth time. Give `queue` or
   * `queueProps`, not both.
   * @default a new queue made from `queueProps`
   */
  readonly queue?: sqs.IQueue;

  /**
   * Settings of the queue the construct makes. `fifo: true` makes a FIFO queue (and a FIFO DLQ).
   * The DLQ is set with `deadLetterQueue` and `maxReceiveCount`, not here.
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
   * Most concurrent invocations the event source starts (2 to 1000).
   * @default no limit beyond the account's concurrency
   */
  readonly maxConcurrency?: number;

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
   * Actions every alarm of the construct takes (an SNS topic, for instance).
   * @default none
   */
  readonly alarmActions?: cloudwatch.IAlarmAction[];

  /**
   * Retention of the function's log group.
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;
}
