import { CfnOutput, Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { STACK_OUTPUTS } from '../../functions/inbox/contract.js';

/**
 * The `<id>` of a construct in its stack outputs' keys: its path below its stack, each part in
 * PascalCase, letters and digits only (`Orders/ship-worker`: `OrdersShipWorker`). The same app
 * makes the same id on every synth; two constructs that would share one make CDK refuse the
 * second output at synth (a key is unique in a template).
 *
 * @example
 * ```ts
 * outputIdOf(inboxDatabase) // 'Inbox'
 * ```
 */
export function outputIdOf(construct: IConstruct): string {
  const scopes = construct.node.scopes;
  const below = scopes.slice(scopes.indexOf(Stack.of(construct)) + 1);
  return below
    .flatMap((scope) => scope.node.id.split(/[^A-Za-z0-9]+/))
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}

/** One output under its key as it is, not the key CDK would make of its path, with what it holds said for the console. */
function output(scope: IConstruct, key: string, value: string, description: string): CfnOutput {
  const made = new CfnOutput(scope, key, { value, description });
  made.overrideLogicalId(key);
  return made;
}

/** What `npx sqs-inbox --stack` connects with. */
export interface DatabaseOutputValues {
  readonly clusterArn: string;
  readonly operatorSecretArn: string;
  readonly databaseName: string;
}

/**
 * The outputs of an `InboxDatabase` (`STACK_OUTPUTS.database`): the cluster's ARN, the operator
 * role's secret ARN and the database's name, under `SqsInboxDatabase<id>`.
 *
 * @example
 * ```ts
 * databaseOutputs(this, { clusterArn: cluster.clusterArn, operatorSecretArn: secret.secretArn, databaseName: 'inbox' });
 * ```
 */
export function databaseOutputs(database: IConstruct, values: DatabaseOutputValues): void {
  const key = `${STACK_OUTPUTS.databasePrefix}${outputIdOf(database)}`;
  const { clusterArn, operatorSecretArn, databaseName } = STACK_OUTPUTS.database;
  output(database, `${key}${clusterArn}`, values.clusterArn, 'sqs-inbox: the Aurora cluster (the Data API\'s resource ARN)');
  output(database, `${key}${operatorSecretArn}`, values.operatorSecretArn, 'sqs-inbox: the operator role\'s secret, for npx sqs-inbox');
  output(database, `${key}${databaseName}`, values.databaseName, 'sqs-inbox: the database that holds the inbox');
}

/** What a consumer exports: its name, its database's `<id>`, and its queues' URLs when it reads SQS. */
export interface ConsumerOutputValues {
  readonly consumerName: string;
  readonly database: IConstruct;
  readonly queueUrl?: string;
  readonly deadLetterQueueUrl?: string;
}

/**
 * The outputs of a consumer attached to an `InboxDatabase` (`STACK_OUTPUTS.consumer`), under
 * `SqsInboxConsumer<id>`, in the consumer's own stack.
 *
 * @example
 * ```ts
 * consumerOutputs(consumer, { consumerName: 'ship-order', database, queueUrl: queue.queueUrl });
 * ```
 */
export function consumerOutputs(consumer: IConstruct, values: ConsumerOutputValues): void {
  const key = `${STACK_OUTPUTS.consumerPrefix}${outputIdOf(consumer)}`;
  const fields = STACK_OUTPUTS.consumer;
  output(consumer, `${key}${fields.name}`, values.consumerName, 'sqs-inbox: the consumer\'s name, its rows\' consumer_name');
  output(consumer, `${key}${fields.database}`, outputIdOf(values.database), 'sqs-inbox: the <id> of its InboxDatabase\'s outputs');
  if (values.queueUrl !== undefined) output(consumer, `${key}${fields.queueUrl}`, values.queueUrl, 'sqs-inbox: the queue it consumes');
  if (values.deadLetterQueueUrl !== undefined) output(consumer, `${key}${fields.deadLetterQueueUrl}`, values.deadLetterQueueUrl, 'sqs-inbox: its dead-letter queue');
}
