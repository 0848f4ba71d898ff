import { Duration, type Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { InboxDatabase } from '../../lib/database/inbox-database.js';
import { InboxKafkaConsumer } from '../../lib/kafka/inbox-kafka-consumer.js';
import { InboxConsumer } from '../../lib/sqs/inbox-consumer.js';
import { WORKER_ENTRY } from './consumer-fixture.js';
import { bareStack } from './database-fixture.js';
import { MSK_CLUSTER_ARN } from './kafka-consumer-fixture.js';

/** What `operatorStack` builds. */
export interface OperatorStack {
  readonly stack: Stack;
  readonly database: InboxDatabase;
  /** An SQS consumer made before the grant, one level down (`Orders/ship-worker`). */
  readonly orders: InboxConsumer;
  /** An SQS consumer made after the grant. */
  readonly refunds: InboxConsumer;
  /** A Kafka consumer: a name, no queue. */
  readonly shipping: InboxKafkaConsumer;
  /** The role granted `grantOperator`. */
  readonly onCall: iam.Role;
}

/**
 * A stack with an InboxDatabase, two SQS consumers and a Kafka one, and an on-call role granted the
 * operator's access between the first consumer and the second, unbundled: the tests read its template.
 *
 * @example
 * ```ts
 * const { stack, database, onCall } = operatorStack();
 * ```
 */
export function operatorStack(): OperatorStack {
  const stack = bareStack('OperatorTest');
  const database = new InboxDatabase(stack, 'Inbox');
  const orders = new InboxConsumer(new Construct(stack, 'Orders'), 'ship-worker', { database, entry: WORKER_ENTRY, queueProps: { fifo: true }, serviceName: 'ship-order' });
  const onCall = new iam.Role(stack, 'OnCall', { assumedBy: new iam.AccountRootPrincipal() });
  database.grantOperator(onCall);
  const refunds = new InboxConsumer(stack, 'Refunds', { database, entry: WORKER_ENTRY });
  const shipping = new InboxKafkaConsumer(stack, 'Shipping', {
    database, entry: WORKER_ENTRY, source: { kind: 'msk', clusterArn: MSK_CLUSTER_ARN }, topic: 'orders', topicRetention: Duration.days(15),
    inboxRetention: Duration.days(30), onFailureReachable: true,
  });
  return { stack, database, orders, refunds, shipping, onCall };
}
