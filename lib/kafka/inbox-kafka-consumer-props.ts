import type { Duration } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { AuthenticationMethod } from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { InboxConsumerCommonProps } from '../consumer/common-props.js';

/**
 * An Amazon MSK cluster (provisioned or serverless) as the event source.
 *
 * @example
 * ```ts
 * const source: MskSource = { kind: 'msk', clusterArn: 'arn:aws:kafka:eu-west-1:123456789012:cluster/orders/0b1c-2d3e-4' };
 * ```
 */
export interface MskSource {
  readonly kind: 'msk';
  /** The cluster's ARN, `arn:<partition>:kafka:<region>:<account>:cluster/<name>/<uuid>`. */
  readonly clusterArn: string;
  /**
   * The SASL/SCRAM-512 credentials Lambda's pollers sign in with (MSK wants such a secret encrypted
   * with a customer managed key; the grant covers it).
   * @default none: IAM access control, with kafka-cluster permissions on the cluster, the topic and
   * the consumer group granted to the function's role (an unauthenticated cluster ignores them)
   */
  readonly secret?: secretsmanager.ISecret;
}

/**
 * A self-managed Apache Kafka cluster (any Kafka, Confluent, ...) as the event source.
 *
 * @example
 * ```ts
 * const source: SelfManagedKafkaSource = { kind: 'self-managed', bootstrapServers: ['b-1.example.com:9096'], secret: brokerSecret };
 * ```
 */
export interface SelfManagedKafkaSource {
  readonly kind: 'self-managed';
  /** The brokers, `host:port` each. */
  readonly bootstrapServers: string[];
  /**
   * The credentials (or client certificate) the pollers sign in with; required for brokers reached
   * over the internet (outside a VPC).
   * @default none (brokers in `vpc` without authentication)
   */
  readonly secret?: secretsmanager.ISecret;
  /**
   * How `secret` is used.
   * @default AuthenticationMethod.SASL_SCRAM_512_AUTH
   */
  readonly authenticationMethod?: AuthenticationMethod;
  /**
   * The root CA certificate of brokers whose TLS certificate a public CA did not sign.
   * @default none
   */
  readonly rootCACertificate?: secretsmanager.ISecret;
  /**
   * The VPC of brokers reachable only inside it; then `vpcSubnets` and `securityGroup` are required,
   * and the function's role may manage the network interfaces Lambda's pollers use there.
   * @default none: the brokers are reached over the internet
   */
  readonly vpc?: ec2.IVpc;
  /**
   * The subnets of `vpc` the pollers connect from.
   * @default none
   */
  readonly vpcSubnets?: ec2.SubnetSelection;
  /**
   * The security group of the pollers' network interfaces; the brokers must admit it.
   * @default none
   */
  readonly securityGroup?: ec2.ISecurityGroup;
}

/** Where the records come from. */
export type InboxKafkaSource = MskSource | SelfManagedKafkaSource;

/**
 * What an `InboxKafkaConsumer` takes: the shared props (`InboxConsumerCommonProps`) and the
 * topic's. The database (`database`, or `cluster` and `databaseName`), handler, Kafka source, topic
 * and the topic's retention are required; every other setting defaults to what the inbox's
 * guarantees need.
 *
 * @example
 * ```ts
 * const props: InboxKafkaConsumerProps = {
 *   database, entry: 'functions/ship-orders/index.ts',
 *   source: { kind: 'msk', clusterArn }, topic: 'orders', topicRetention: Duration.days(7),
 * };
 * ```
 */
export interface InboxKafkaConsumerProps extends InboxConsumerCommonProps {
  /** The Kafka cluster: `{ kind: 'msk', ... }` or `{ kind: 'self-managed', ... }`. */
  readonly source: InboxKafkaSource;

  /** The topic to consume. */
  readonly topic: string;

  /**
   * How long the topic keeps a record (its `retention.ms`), which the construct cannot read. Any
   * record still in the topic can be delivered again (a consumer group reset, a new event source
   * mapping starting from TRIM_HORIZON), and a record written back to the topic (a redrive from
   * the on-failure destination) is kept this long again, so the inbox must remember it at least
   * twice this long; for a compacted topic, give the longest a record may stay readable.
   */
  readonly topicRetention: Duration;

  /**
   * The Kafka consumer group the event source joins (1 to 200 of `[a-zA-Z0-9-/*:_+=.@]`). Another
   * consumer in the same group takes partitions away from this one.
   * @default a name unique to this construct in the app (its path and a hash), so the role's
   * kafka-cluster permissions name the group exactly and MSK's consumer lag metrics can be found;
   * moving or renaming the construct starts a new group (from `startingPosition`)
   */
  readonly consumerGroupId?: string;

  /**
   * Where a new consumer group starts. TRIM_HORIZON reads every record the topic still holds: a
   * record written before the event source existed is not skipped, and the inbox turns records
   * already applied into duplicates. LATEST skips everything written before the event source was
   * created, e.g. during the deploy. Committed offsets win over both.
   * @default lambda.StartingPosition.TRIM_HORIZON
   */
  readonly startingPosition?: lambda.StartingPosition;

  /**
   * With `startingPosition` AT_TIMESTAMP: the time, in Unix seconds, to start from.
   * @default none
   */
  readonly startingPositionTimestamp?: number;

  /**
   * Records per invocation, 1 to 10,000 (Lambda also cuts a batch at 6 MB).
   * @default 100
   */
  readonly batchSize?: number;

  /**
   * How long Lambda gathers records before invoking, at most 5 minutes.
   * @default Lambda's 500 ms
   */
  readonly maxBatchingWindow?: Duration;

  /**
   * The provisioned pollers. Lambda reads a Kafka function's partial batch response, and takes the
   * retry, record age, bisect and Kafka topic destination settings, only in provisioned mode, so
   * `false` is refused. Each poller handles up to 5 MB/s or 5 concurrent invocations; provisioned
   * mode bills the pollers, so `minimumPollers` is paid for around the clock.
   * @default minimumPollers 1; maximumPollers derived from `clusterMaxCapacity` (2 invocations
   * per ACU, 5 per poller, at least 1), else Lambda's 200 with a synth warning
   */
  readonly provisionedPollers?: lambda.ProvisionedPollerConfig | false;

  /**
   * Retries of a failed batch before its failed records go to `onFailure`: 4 to 10,000 (5 attempts
   * at least, as the SQS consumer's 5 receives, so a lock wait or a throttle does not dead-letter a
   * good record). Never infinite: a record retried forever holds its partition back until it
   * leaves the topic.
   * @default 10
   */
  readonly retryAttempts?: number;

  /**
   * Records older than this go to `onFailure` without being processed (60 s to 7 days). Set it only
   * when a stale record is worthless; a backlog after an outage would otherwise be dead-lettered.
   * @default none: only `retryAttempts` bounds a record's attempts
   */
  readonly maxRecordAge?: Duration;

  /**
   * Split a failing batch in two and retry each half. The kit reports failed records itself, so a
   * batch fails as a whole only on a crash, a timeout or a refused event, where halving mostly adds
   * invocations; and AWS does not say how halves keep the order inside a partition.
   * @default false
   */
  readonly bisectBatchOnError?: boolean;

  /**
   * Where a record goes after its retries (or `maxRecordAge`): `SqsDlq`, `SnsDlq`,
   * `S3OnFailureDestination` or `KafkaDlq` (a topic of the same cluster, never the consumed one).
   * An SQS or SNS destination gets a notice with the partition and offset range, not the records;
   * S3 and Kafka get the records. FIFO queues and topics are not supported by Lambda. Lambda sends
   * to an SQS, SNS or S3 destination from the Kafka cluster's VPC, which needs a VPC endpoint for
   * that service (see `onFailureReachable`).
   * @default a new standard SQS queue with SQS-managed encryption, a TLS-only policy and 14 days'
   * retention, with alarms when it is not empty and before its oldest notice expires
   */
  readonly onFailure?: lambda.IEventSourceDlq;

  /**
   * Whether the Kafka cluster's VPC (an MSK cluster's, or a self-managed cluster's `vpc`) has a
   * network path to the on-failure destination's service: AWS asks for a VPC endpoint of SQS, SNS
   * or S3 there, since Lambda sends the failures from the pollers in that VPC. Without one a record
   * whose retries ran out is lost instead of reaching the destination. A `KafkaDlq` topic is in the
   * cluster and needs none, nor do brokers reached over the internet.
   * @default false: a synth warning when the destination is an SQS, SNS or S3 one and the pollers run in a VPC
   */
  readonly onFailureReachable?: boolean;

  /**
   * Records the consumer group may be behind the topic (Lambda's `OffsetLag`, the topic's highest
   * over 5 minutes) for 15 minutes before the lag alarm fires.
   * @default 10,000
   */
  readonly offsetLagThreshold?: number;
}
