import { Names, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { IConstruct } from 'constructs';

/** What `rejected replay` calls on a consumer's queue: its URL from the kept ARN, then the send. */
export const OPERATOR_QUEUE_ACTIONS = ['sqs:GetQueueUrl', 'sqs:SendMessage'] as const;

/** What `--stack NAME` calls: the stack's outputs. */
export const OPERATOR_STACK_ACTIONS = ['cloudformation:DescribeStacks'] as const;

/**
 * Lets an operator send a kept message back to `queue` (`rejected replay`), and no more: no
 * receive, no delete, no purge. A queue encrypted with a key of the user's also needs the key's
 * data key to send. A role of another stack than the queue's gets the statement in a policy of the
 * queue's stack: the role's stack may be the database's, which the queue's stack already depends on,
 * and the role's own policy naming the queue would close a cycle.
 *
 * @example
 * ```ts
 * grantReplayQueue(consumer.queue, onCallRole);
 * ```
 */
export function grantReplayQueue(queue: sqs.IQueue, grantee: iam.IGrantable): void {
  const statement = new iam.PolicyStatement({ actions: [...OPERATOR_QUEUE_ACTIONS], resources: [queue.queueArn] });
  const principal = grantee.grantPrincipal;
  if (iam.Role.isRole(principal) && Stack.of(principal) !== Stack.of(queue)) {
    new iam.Policy(queue, `OperatorSend${Names.uniqueId(principal)}`, { roles: [principal], statements: [statement] });
  } else {
    iam.Grant.addToPrincipal({ grantee, actions: statement.actions, resourceArns: statement.resources });
  }
  queue.encryptionMasterKey?.grant(grantee, 'kms:Decrypt', 'kms:GenerateDataKey');
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
