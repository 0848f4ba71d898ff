import { Token } from 'aws-cdk-lib';
import { days, isWhole, seconds } from '../shared/rule-words.js';
import type { ConsumerRule } from '../shared/rule-words.js';
import type { SelfManagedKafkaSource } from './inbox-kafka-consumer-props.js';
import { KAFKA_DEFAULTS, KAFKA_LIMITS } from './kafka-settings.js';
import type { KafkaSettings } from './kafka-settings.js';

const known = (value: string): boolean => !Token.isUnresolved(value);
const selfManaged = (s: KafkaSettings): SelfManagedKafkaSource | undefined =>
  (s.props.source.kind === 'self-managed' ? s.props.source : undefined);

/** Kafka's own topic name rule. */
const TOPIC_NAME = /^[a-zA-Z0-9._-]{1,249}$/;
/** Lambda's consumer group id rule (CreateEventSourceMapping, ConsumerGroupId). */
const CONSUMER_GROUP_ID = /^[a-zA-Z0-9\-/*:_+=.@]{1,200}$/;
/** An MSK cluster (provisioned or serverless) ARN; the role's kafka-cluster resources are derived from it. */
const MSK_CLUSTER_ARN = /^arn:aws[a-z-]*:kafka:[a-z0-9-]+:\d{12}:cluster\/[^/]+\/[^/]+$/;

/**
 * What an `InboxKafkaConsumer` refuses at synth time beyond the shared rules (`COMMON_RULES`),
 * checked in this order before anything is built. Each message quotes the value given. The CDK
 * checks none of the provisioned-mode dependencies: without this table such a stack synthesizes
 * and fails at deploy.
 *
 * @example
 * ```ts
 * const broken = KAFKA_RULES.filter((rule) => rule.breaks(settings));
 * ```
 */
export const KAFKA_RULES: readonly ConsumerRule<KafkaSettings>[] = [
  {
    breaks: (s) => s.provisionedPollers === undefined,
    message: () => 'The kit answers every Kafka batch with a partial batch response (ReportBatchItemFailures), and Lambda takes one from a Kafka '
      + 'event source only in provisioned mode (the CDK does not check this: the deploy would fail); without it one failed record would '
      + 'fail its whole batch. But provisionedPollers false was provided: drop it (the default is minimumPollers 1) or give { minimumPollers, maximumPollers }.',
  },
  {
    breaks: (s) => s.provisionedPollers === undefined && s.onFailure.kind === 'kafka',
    message: (s) => `An on-failure Kafka topic (KafkaDlq ${s.onFailure.kafkaTopic ?? ''}) needs provisioned mode, but provisionedPollers false was provided.`,
  },
  {
    breaks: (s) => s.provisionedPollers?.minimumPollers !== undefined && !isWhole(s.provisionedPollers.minimumPollers, KAFKA_LIMITS.minimumPollers),
    message: (s) => `provisionedPollers.minimumPollers must be a whole number from ${KAFKA_LIMITS.minimumPollers.min} to ${KAFKA_LIMITS.minimumPollers.max}, `
      + `but ${s.provisionedPollers?.minimumPollers} was provided.`,
  },
  {
    breaks: (s) => s.provisionedPollers?.maximumPollers !== undefined && !isWhole(s.provisionedPollers.maximumPollers, KAFKA_LIMITS.maximumPollers),
    message: (s) => `provisionedPollers.maximumPollers must be a whole number from ${KAFKA_LIMITS.maximumPollers.min} to ${KAFKA_LIMITS.maximumPollers.max}, `
      + `but ${s.provisionedPollers?.maximumPollers} was provided.`,
  },
  {
    breaks: (s) => (s.provisionedPollers?.minimumPollers ?? 0) > (s.provisionedPollers?.maximumPollers ?? Infinity),
    message: (s) => `provisionedPollers.minimumPollers (${s.provisionedPollers?.minimumPollers}) must not exceed maximumPollers `
      + `(${s.provisionedPollers?.maximumPollers}${s.props.provisionedPollers && s.props.provisionedPollers.maximumPollers !== undefined ? '' : ', derived from clusterMaxCapacity'}).`,
  },
  {
    breaks: (s) => s.retryAttempts === -1,
    message: () => 'Retries must be bounded, but retryAttempts -1 (infinite) was provided: a record retried forever holds its partition back until it '
      + `leaves the topic, and with an on-failure destination Lambda would cap it at 10 anyway. Give ${KAFKA_LIMITS.retryAttempts.min} to `
      + `${KAFKA_LIMITS.retryAttempts.max} (the default is ${KAFKA_DEFAULTS.retryAttempts}); then the record goes to the on-failure destination.`,
  },
  {
    breaks: (s) => s.retryAttempts !== -1 && !isWhole(s.retryAttempts, KAFKA_LIMITS.retryAttempts),
    message: (s) => `retryAttempts must be a whole number from ${KAFKA_LIMITS.retryAttempts.min} to ${KAFKA_LIMITS.retryAttempts.max} (5 attempts at least, so a `
      + `lock wait or a throttle does not dead-letter a good record), but ${s.retryAttempts} was provided.`,
  },
  {
    breaks: (s) => s.props.maxRecordAge !== undefined && !isWhole(s.props.maxRecordAge.toSeconds({ integral: false }), KAFKA_LIMITS.maxRecordAgeSeconds),
    message: (s) => `maxRecordAge must be whole seconds from ${KAFKA_LIMITS.maxRecordAgeSeconds.min} s to ${KAFKA_LIMITS.maxRecordAgeSeconds.max} s (7 days), `
      + `but ${seconds(s.props.maxRecordAge!)} was provided.`,
  },
  {
    breaks: (s) => !isWhole(s.batchSize, KAFKA_LIMITS.batchSize),
    message: (s) => `batchSize must be a whole number from ${KAFKA_LIMITS.batchSize.min} to ${KAFKA_LIMITS.batchSize.max}, but ${s.batchSize} was provided.`,
  },
  {
    breaks: (s) => s.topicRetention.toMilliseconds() <= 0,
    message: (s) => `topicRetention is how long the topic keeps a record (its retention.ms), so it is more than 0, but ${seconds(s.topicRetention)} was provided.`,
  },
  {
    breaks: (s) => s.inboxRetention.toMilliseconds() < s.longestRecordLife.toMilliseconds(),
    message: (s) => 'The inbox retention must be at least twice the topic\'s retention: a record can be delivered again while the topic holds it, '
      + 'and a redrive (its records written back to the topic, read at the offsets of an SQS or SNS failure notice while the topic still holds '
      + 'them, or taken from a Kafka or S3 destination) starts a second life there under a new offset; a shorter one lets a late delivery find no '
      + `claim and be applied again. But an inboxRetention of ${days(s.inboxRetention)} was provided for a topicRetention of ${days(s.topicRetention)}: `
      + `raise inboxRetention to ${days(s.longestRecordLife)}${s.onFailure.holdsRecords ? ', plus how long the on-failure destination keeps a record' : ''}.`,
  },
  {
    breaks: (s) => s.onFailure.kind === 'kafka' && s.onFailure.kafkaTopic === s.props.topic,
    message: (s) => `The on-failure topic must not be the consumed topic, but KafkaDlq ${s.props.topic} was provided for topic ${s.props.topic}: `
      + 'a failed record would come back to the consumer that failed it. Give another topic of the same cluster.',
  },
  {
    breaks: (s) => s.onFailure.fifo,
    message: (s) => `Lambda does not deliver failures to a FIFO ${s.onFailure.kind === 'sns' ? 'SNS topic' : 'SQS queue'}, but a FIFO one was provided `
      + 'as onFailure: give a standard one.',
  },
  {
    breaks: (s) => known(s.props.topic) && !TOPIC_NAME.test(s.props.topic),
    message: (s) => `topic must be a Kafka topic name (1 to 249 letters, digits, '.', '_' or '-'), but "${s.props.topic}" was provided.`,
  },
  {
    breaks: (s) => known(s.consumerGroupId) && !CONSUMER_GROUP_ID.test(s.consumerGroupId),
    message: (s) => `consumerGroupId must be 1 to 200 letters, digits or -/*:_+=.@, but "${s.consumerGroupId}" was provided.`,
  },
  {
    breaks: (s) => s.props.source.kind === 'msk' && known(s.props.source.clusterArn) && !MSK_CLUSTER_ARN.test(s.props.source.clusterArn),
    message: (s) => 'source.clusterArn must be an MSK cluster ARN (arn:aws:kafka:<region>:<account>:cluster/<name>/<uuid>), '
      + `but "${s.props.source.kind === 'msk' ? s.props.source.clusterArn : ''}" was provided.`,
  },
  {
    breaks: (s) => selfManaged(s) !== undefined && selfManaged(s)!.bootstrapServers.length === 0,
    message: () => 'source.bootstrapServers lists no broker: give at least one host:port.',
  },
  {
    breaks: (s) => selfManaged(s)?.vpc !== undefined && (selfManaged(s)!.vpcSubnets === undefined || selfManaged(s)!.securityGroup === undefined),
    message: (s) => `Brokers in a VPC are reached from its subnets with a security group, but source.vpc was provided without `
      + `${selfManaged(s)!.vpcSubnets === undefined ? 'vpcSubnets' : 'securityGroup'}: give both.`,
  },
  {
    breaks: (s) => selfManaged(s) !== undefined && selfManaged(s)!.vpc === undefined && selfManaged(s)!.secret === undefined,
    message: () => 'Brokers outside a VPC are reached over the internet, which Lambda does only with credentials, but source.secret was not '
      + 'provided: give the secret (and its authenticationMethod), or the broker VPC with vpcSubnets and securityGroup.',
  },
  {
    breaks: (s) => !(Number.isInteger(s.offsetLagThreshold) && s.offsetLagThreshold >= 1),
    message: (s) => `offsetLagThreshold is a number of records, a whole number of at least 1, but ${s.offsetLagThreshold} was provided.`,
  },
];
