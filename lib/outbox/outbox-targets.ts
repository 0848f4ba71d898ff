import { Stack, Token } from 'aws-cdk-lib';
import type * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { IConstruct } from 'constructs';
import type { OutboxTargetEnv, OutboxTargetsEnv } from '../../functions/inbox/contract.js';
import { InfraConfigError } from '../infra-config-error.js';
import type { OutboxTarget } from './outbox-props.js';

/** A target with its kind, told apart by what it exposes: a queue its URL, a topic its ARN, a bus its ARN. */
type KnownTarget =
  | { readonly kind: 'sqs'; readonly target: sqs.IQueue }
  | { readonly kind: 'sns'; readonly target: sns.ITopic }
  | { readonly kind: 'eventbridge'; readonly target: events.IEventBus }
  | { readonly kind: undefined; readonly target: unknown };

/**
 * Which kind of target `target` is, or `undefined` for anything else (a rule refuses it).
 *
 * @example
 * ```ts
 * outboxTargetKind(new sqs.Queue(stack, 'Notices')).kind // 'sqs'
 * ```
 */
export function outboxTargetKind(target: unknown): KnownTarget {
  if (typeof target === 'object' && target !== null) {
    if ('queueUrl' in target && 'queueArn' in target) return { kind: 'sqs', target: target as sqs.IQueue };
    if ('topicArn' in target) return { kind: 'sns', target: target as sns.ITopic };
    if ('eventBusArn' in target) return { kind: 'eventbridge', target: target as events.IEventBus };
  }
  return { kind: undefined, target };
}

/** The queue's MaximumMessageSize when this app sets it, which the runtime then checks rows against. */
function maxMessageBytesOf(queue: sqs.IQueue): number | undefined {
  const cfn = queue.node.defaultChild;
  const size = cfn instanceof sqs.CfnQueue ? cfn.maximumMessageSize : undefined;
  return typeof size === 'number' && !Token.isUnresolved(size) ? size : undefined;
}

function targetEnv(name: string, target: OutboxTarget): OutboxTargetEnv {
  const known = outboxTargetKind(target);
  switch (known.kind) {
    case 'sqs': {
      const maxMessageBytes = maxMessageBytesOf(known.target);
      return { type: 'sqs', queueUrl: known.target.queueUrl, ...(maxMessageBytes === undefined ? {} : { maxMessageBytes }) };
    }
    case 'sns':
      return { type: 'sns', topicArn: known.target.topicArn };
    case 'eventbridge':
      // The ARN, not the name: PutEvents takes either, and only the ARN reaches a bus of another account.
      return { type: 'eventbridge', eventBusName: known.target.eventBusArn };
    default:
      throw new InfraConfigError(`outbox target ${name} is not an SQS queue, an SNS topic or an EventBridge bus: give an IQueue, ITopic or IEventBus.`);
  }
}

/**
 * INBOX_OUTBOX_TARGETS for `targets`, as `outboxTargetsFromEnv` reads it: JSON of `OutboxTargetsEnv`,
 * with the queue URLs and ARNs as CloudFormation resolves them.
 *
 * @example
 * ```ts
 * environment[INBOX_ENV.outboxTargets] = outboxTargetsJson(this, { shipped: notices }); // {"shipped":{"type":"sqs","queueUrl":"https://..."}}
 * ```
 */
export function outboxTargetsJson(scope: IConstruct, targets: Readonly<Record<string, OutboxTarget>>): string {
  const described: OutboxTargetsEnv = Object.fromEntries(Object.entries(targets).map(([name, target]) => [name, targetEnv(name, target)]));
  return Stack.of(scope).toJsonString(described);
}

/** A key of the customer's: AWS managed keys (`alias/aws/...`) let any principal of the account that may use their service. */
function customerKey(key: kms.IKey | undefined): kms.IKey | undefined {
  if (key === undefined) return undefined;
  const alias = (key as Partial<kms.IAlias>).aliasName;
  return typeof alias === 'string' && !Token.isUnresolved(alias) && alias.startsWith('alias/aws/') ? undefined : key;
}

/** The one action that sends to a target of each kind: the batch calls (SendMessageBatch, PublishBatch) need no other. */
const SEND_ACTION = { sqs: 'sqs:SendMessage', sns: 'sns:Publish', eventbridge: 'events:PutEvents' } as const;

/**
 * Lets `grantee` send to `targets` and do nothing else with them: `sqs:SendMessage`, `sns:Publish`
 * or `events:PutEvents` on each target's ARN, and `kms:GenerateDataKey` and `kms:Decrypt` on the
 * customer managed key of an encrypted queue or topic (SQS and SNS encrypt with the sender's
 * rights; an event bus's key is used by EventBridge under its key policy, not by the sender).
 * Unlike `queue.grantSendMessages`, no GetQueueAttributes nor GetQueueUrl: the runtime has the URL.
 *
 * @example
 * ```ts
 * grantOutboxSend(workerFunction, { shipped: notices.queue, events: bus });
 * ```
 */
export function grantOutboxSend(grantee: iam.IGrantable, targets: Readonly<Record<string, OutboxTarget>>): void {
  const arns = { sqs: new Set<string>(), sns: new Set<string>(), eventbridge: new Set<string>() };
  const keys = new Set<string>();
  const addKey = (key: kms.IKey | undefined) => {
    const own = customerKey(key);
    if (own !== undefined) keys.add(own.keyArn);
  };
  for (const target of Object.values(targets)) {
    const known = outboxTargetKind(target);
    if (known.kind === 'sqs') {
      arns.sqs.add(known.target.queueArn);
      addKey(known.target.encryptionMasterKey);
    } else if (known.kind === 'sns') {
      arns.sns.add(known.target.topicArn);
      addKey(known.target.masterKey);
    } else if (known.kind === 'eventbridge') {
      arns.eventbridge.add(known.target.eventBusArn);
    }
  }
  for (const kind of Object.keys(arns) as (keyof typeof SEND_ACTION)[]) {
    if (arns[kind].size > 0) iam.Grant.addToPrincipal({ grantee, actions: [SEND_ACTION[kind]], resourceArns: [...arns[kind]] });
  }
  if (keys.size > 0) iam.Grant.addToPrincipal({ grantee, actions: ['kms:GenerateDataKey', 'kms:Decrypt'], resourceArns: [...keys] });
}
