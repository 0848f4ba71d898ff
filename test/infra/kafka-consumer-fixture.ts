import { Duration } from 'aws-cdk-lib';
import type { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type * as rds from 'aws-cdk-lib/aws-rds';
import { InboxKafkaConsumer } from '../../lib/kafka/inbox-kafka-consumer.js';
import type { InboxKafkaConsumerProps } from '../../lib/kafka/inbox-kafka-consumer-props.js';
import { WORKER_ENTRY, clusterStack } from './consumer-fixture.js';

/** An MSK cluster ARN of the documented shape. */
export const MSK_CLUSTER_ARN = 'arn:aws:kafka:eu-west-1:123456789012:cluster/orders-cluster/0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0-2';

/** The props every Kafka consumer test starts from: MSK with IAM access control, topic `orders` kept 7 days. */
export function kafkaProps(cluster: rds.IDatabaseCluster): InboxKafkaConsumerProps {
  return {
    cluster,
    databaseName: 'inbox',
    entry: WORKER_ENTRY,
    source: { kind: 'msk', clusterArn: MSK_CLUSTER_ARN },
    topic: 'orders',
    topicRetention: Duration.days(7),
  };
}

/** What a Kafka test built: the stack, the Aurora cluster, the consumer and its template. */
export interface KafkaBuild {
  readonly stack: Stack;
  readonly cluster: rds.DatabaseCluster;
  readonly consumer: InboxKafkaConsumer;
  readonly template: Template;
}

/**
 * One Kafka consumer in a fresh stack (bundling skipped), with `overrides` on top of the base
 * props; `overrides` may use the stack, e.g. for a VPC, a secret or a queue.
 *
 * @example
 * ```ts
 * const { template } = kafkaConsumer(() => ({ retryAttempts: 20 }));
 * ```
 */
export function kafkaConsumer(overrides: (scope: { stack: Stack; cluster: rds.DatabaseCluster }) => Partial<InboxKafkaConsumerProps> = () => ({})): KafkaBuild {
  const { stack, cluster } = clusterStack();
  const consumer = new InboxKafkaConsumer(stack, 'Orders', { ...kafkaProps(cluster), ...overrides({ stack, cluster }) });
  return { stack, cluster, consumer, template: Template.fromStack(stack) };
}

/**
 * A function that builds a Kafka consumer with `overrides`, for `expect(...).toThrow(...)`.
 *
 * @example
 * ```ts
 * expect(buildKafka(() => ({ batchSize: 0 }))).toThrow(/batchSize/);
 * ```
 */
export function buildKafka(overrides: (scope: { stack: Stack; cluster: rds.DatabaseCluster }) => Partial<InboxKafkaConsumerProps>): () => InboxKafkaConsumer {
  const { stack, cluster } = clusterStack();
  return () => new InboxKafkaConsumer(stack, 'Orders', { ...kafkaProps(cluster), ...overrides({ stack, cluster }) });
}
