import { Names, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { IConstruct } from 'constructs';

/** What `rejected replay` calls on a consumer's queue: its URL from the kept ARN, then the send. */
export const OPERATOR_QUEUE_ACTIONS = ['sqs:GetQueueUrl', 'sqs:SendMessage'] as const;

/**
 * What `dlq redrive` calls on a consumer's DLQ: its attributes (the count it reports), receive, the
 * visibility of what it leaves, and the delete of what it sent back (the send is the queue's, above).
 */
export const OPERATOR_DLQ_ACTIONS = ['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:ReceiveMessage'] as const;

/** What `--stack NAME` calls: the stack's outputs. */
export const OPERATOR_STACK_ACTIONS = ['cloudformation:DescribeStacks'] as const;

/**
 * Lets an operator send a kept message back to a consumer's `queue` (`rejected replay`, and `dlq
 * redrive`'s sends), and move what its `deadLetterQueue` holds (`dlq redrive`): receive and delete
 * on the DLQ only, no purge anywhere. A queue encrypted with a key of the user's also needs the
 * key's data key. A role of another stack than the queue's gets the statements in a policy of the
 * queue's stack: the role's stack may be the database's, which the queue's stack already depends
 * on, and the role's own policy naming the queue would close a cycle.
 *
 * @example
 * ```ts
 * grantOperatedQueues({ queue: consumer.queue, deadLetterQueue: consumer.deadLetterQueue }, onCallRole);
 * ```
 */
export function grantOperatedQueues(queues: { readonly queue: sqs.IQueue; readonly deadLetterQueue?: sqs.IQueue }, grantee: iam.IGrantable): void {
  grantQueue(queues.queue, grantee, { id: 'OperatorSend', actions: OPERATOR_QUEUE_ACTIONS, keyActions: ['kms:Decrypt', 'kms:GenerateDataKey'] });
  if (queues.deadLetterQueue !== undefined) {
    grantQueue(queues.deadLetterQueue, grantee, { id: 'OperatorRedrive', actions: OPERATOR_DLQ_ACTIONS, keyActions: ['kms:Decrypt'] });
  }
}

function grantQueue(queue: sqs.IQueue, grantee: iam.IGrantable, grant: { readonly id: string; readonly actions: readonly string[]; readonly keyActions: readonly string[] }): void {
  const statement = new iam.PolicyStatement({ actions: [...grant.actions], resources: [queue.queueArn] });
  const principal = grantee.grantPrincipal;
  if (iam.Role.isRole(principal) && Stack.of(principal) !== Stack.of(queue)) {
    new iam.Policy(queue, `${grant.id}${Names.uniqueId(principal)}`, { roles: [principal], statements: [statement] });
  } else {
    iam.Grant.addToPrincipal({ grantee, actions: statement.actions, resourceArns: statement.resources });
  }
  queue.encryptionMasterKey?.grant(grantee, ...grant.keyActions);
}

/**
 * Lets an operator read the outputs of the stack `scope` is in (DescribeStacks on that stack's
 * id alone), what `npx sqs-inbox --stack NAME` connects with.
 *
 * @example
 * ```ts
 * grantStackOutputs(inboxDatabase, onCallRole);
 * ```
 */
export function grantStackOutputs(scope: IConstruct, grantee: iam.IGrantable): iam.Grant {
  return iam.Grant.addToPrincipal({ grantee, actions: [...OPERATOR_STACK_ACTIONS], resourceArns: [Stack.of(scope).stackId] });
}
