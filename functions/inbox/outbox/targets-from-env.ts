import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { INBOX_ENV, type OutboxTargetEnv } from '../contract.js';
import { InboxConfigError } from '../errors.js';
import { eventBridgeTarget } from './event-bridge-target.js';
import type { Publisher } from './publisher.js';
import { snsTarget } from './sns-target.js';
import { sqsTarget } from './sqs-target.js';

/** Options of `outboxTargetsFromEnv`. */
export interface OutboxTargetsFromEnvOptions<K extends string = string> {
  /**
   * The targets the handler sends to: a name the variable lacks is refused here, at cold start, and
   * the names type the handler's messages (`outbox.send({ target })` to another name does not compile).
   * @default any the variable holds, typed as string
   */
  readonly names?: readonly K[];
  /**
   * Where to read `INBOX_OUTBOX_TARGETS`.
   * @default process.env
   */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * The clients the targets send with, one per service for all its targets.
   * @default new clients with the function's configuration, made when a target of theirs is
   */
  readonly clients?: { readonly sqs?: SQSClient; readonly sns?: SNSClient; readonly eventBridge?: EventBridgeClient };
}

function refuse(detail: string): InboxConfigError {
  return new InboxConfigError(`${INBOX_ENV.outboxTargets} ${detail}. It holds JSON such as {"shipped":{"type":"sqs","queueUrl":"https://sqs..."}}, as the InboxConsumer construct's outbox prop sets it.`);
}

/**
 * The outbox targets the infrastructure put in the function's environment (`INBOX_OUTBOX_TARGETS`,
 * JSON of `OutboxTargetsEnv`: a name per queue URL, topic ARN or event bus), as publishers sharing
 * one client per service. A missing variable, bad JSON or an unknown type is refused with the
 * variable's name.
 *
 * @example
 * ```ts
 * const targets = outboxTargetsFromEnv({ names: ['shipped'] }); // Record<'shipped', Publisher>
 * export const handler = middy().use(inbox({ consumer: 'ship-orders', db, handle, outbox: { targets } }));
 * ```
 */
export function outboxTargetsFromEnv<const K extends string = string>(options: OutboxTargetsFromEnvOptions<K> = {}): Record<K, Publisher> {
  const text = (options.env ?? process.env)[INBOX_ENV.outboxTargets];
  if (text === undefined || text.trim() === '') throw refuse('is not set');
  let specs: unknown;
  try {
    specs = JSON.parse(text);
  } catch {
    throw refuse('is not JSON');
  }
  if (typeof specs !== 'object' || specs === null || Array.isArray(specs) || Object.keys(specs).length === 0) throw refuse('names no target');
  const missing = (options.names ?? []).filter((name) => !Object.hasOwn(specs as object, name));
  if (missing.length > 0) throw refuse(`names no target ${missing.join(', ')}, which the handler sends to`);
  let sqs = options.clients?.sqs;
  let sns = options.clients?.sns;
  let eventBridge = options.clients?.eventBridge;
  const targets: Record<string, Publisher> = {};
  for (const [name, spec] of Object.entries(specs as Record<string, OutboxTargetEnv>)) {
    switch (spec?.type) {
      case 'sqs':
        targets[name] = sqsTarget({ queueUrl: spec.queueUrl, client: (sqs ??= new SQSClient({})), maxMessageBytes: spec.maxMessageBytes });
        break;
      case 'sns':
        targets[name] = snsTarget({ topicArn: spec.topicArn, client: (sns ??= new SNSClient({})), maxMessageBytes: spec.maxMessageBytes });
        break;
      case 'eventbridge':
        targets[name] = eventBridgeTarget({ eventBusName: spec.eventBusName, source: spec.source, detailType: spec.detailType, client: (eventBridge ??= new EventBridgeClient({})) });
        break;
      default:
        throw refuse(`gives target ${name} the type ${JSON.stringify((spec as { type?: unknown } | null)?.type)}: use sqs, sns or eventbridge`);
    }
  }
  return targets as Record<K, Publisher>;
}
