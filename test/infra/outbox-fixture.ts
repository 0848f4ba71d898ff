import type { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as events from 'aws-cdk-lib/aws-events';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as rds from 'aws-cdk-lib/aws-rds';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { InboxConsumerCommonProps } from '../../lib/consumer/common-props.js';
import type { InboxConsumerBase } from '../../lib/consumer/inbox-consumer-base.js';
import { InboxDatabase } from '../../lib/database/inbox-database.js';
import { InboxKafkaConsumer } from '../../lib/kafka/inbox-kafka-consumer.js';
import type { OutboxTarget } from '../../lib/outbox/outbox-props.js';
import { InboxConsumer } from '../../lib/sqs/inbox-consumer.js';
import { baseProps, clusterStack } from './consumer-fixture.js';
import type { Statement } from './iam-statements.js';
import { kafkaProps } from './kafka-consumer-fixture.js';

type Make = (stack: Stack, cluster: rds.IDatabaseCluster, overrides: Partial<InboxConsumerCommonProps>) => InboxConsumerBase;

/** Each source's construct with `overrides` of the shared props, under the id `Orders`. */
export const OUTBOX_SOURCES: Record<string, Make> = {
  InboxConsumer: (stack, cluster, overrides) => new InboxConsumer(stack, 'Orders', { ...baseProps(cluster), ...overrides }),
  InboxKafkaConsumer: (stack, cluster, overrides) => new InboxKafkaConsumer(stack, 'Orders', { ...kafkaProps(cluster), onFailureReachable: true, ...overrides }),
};

/** One target of each kind, two of them encrypted with a customer managed key, and the keys. */
export interface TargetSet {
  readonly targets: Record<string, OutboxTarget>;
  readonly notices: sqs.Queue;
  readonly sealed: sqs.Queue;
  readonly topic: sns.Topic;
  readonly bus: events.EventBus;
  readonly queueKey: kms.Key;
  readonly topicKey: kms.Key;
  readonly busKey: kms.Key;
}

/**
 * A FIFO queue (SQS-managed encryption, MaximumMessageSize set), a queue and a topic encrypted with
 * keys of their own, and an event bus with a key of its own, named as a handler would.
 */
export function targetSet(stack: Stack): TargetSet {
  const queueKey = new kms.Key(stack, 'QueueKey');
  const topicKey = new kms.Key(stack, 'TopicKey');
  const busKey = new kms.Key(stack, 'BusKey');
  const notices = new sqs.Queue(stack, 'Notices', { fifo: true, encryption: sqs.QueueEncryption.SQS_MANAGED, maxMessageSizeBytes: 65_536 });
  const sealed = new sqs.Queue(stack, 'Sealed', { encryption: sqs.QueueEncryption.KMS, encryptionMasterKey: queueKey });
  const topic = new sns.Topic(stack, 'Topic', { masterKey: topicKey });
  const bus = new events.EventBus(stack, 'Bus', { kmsKey: busKey });
  return {
    targets: { 'shipment-notices': notices, sealed, 'orders.events': topic, bus },
    notices, sealed, topic, bus, queueKey, topicKey, busKey,
  };
}

/** What an outbox test built. */
export interface OutboxBuild extends TargetSet {
  readonly stack: Stack;
  readonly consumer: InboxConsumerBase;
  readonly template: Template;
}

/**
 * A consumer of `kind` with the target set as its outbox and `overrides` on top, attached to an
 * `InboxDatabase` when `withDatabase`.
 *
 * @example
 * ```ts
 * const { consumer, template } = outboxConsumer('InboxConsumer', { outbox: { targets: {}, relaySchedule: Duration.minutes(5) } });
 * ```
 */
export function outboxConsumer(kind: string, overrides: (set: TargetSet) => Partial<InboxConsumerCommonProps> = () => ({}), withDatabase = false): OutboxBuild {
  const { stack, cluster } = clusterStack();
  const set = targetSet(stack);
  const database = withDatabase ? { database: new InboxDatabase(stack, 'Inbox', { cluster, databaseName: 'inbox' }), cluster: undefined, databaseName: undefined } : {};
  const consumer = OUTBOX_SOURCES[kind]!(stack, cluster, { ...database, outbox: { targets: set.targets }, ...overrides(set) });
  return { ...set, stack, consumer, template: Template.fromStack(stack) };
}

/** Every statement of the policies attached to `fn`'s role in `template`. */
export function statementsOfFunction(stack: Stack, template: Template, fn: { role?: { node: { defaultChild?: unknown } } }): Statement[] {
  const role = stack.getLogicalId(fn.role!.node.defaultChild as never);
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) => JSON.stringify(policy.Properties.Roles) === JSON.stringify([{ Ref: role }]))
    .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
}
