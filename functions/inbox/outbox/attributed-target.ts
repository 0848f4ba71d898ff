import { InboxConfigError } from '../errors.js';
import { keyedAttributes, keyedEntry, stringValued, tracedAttributes, type KeyedEntry } from '../producer/sqs-entry.js';
import { answeredCall, entryAnswers } from './aws-answers.js';
import { attributedMessage } from './message-checks.js';
import type { OutboxEntry } from './outbox-message.js';
import type { Publisher } from './publisher.js';

/** What a target with string message attributes takes (`AWS_LIMITS.sqs`, `AWS_LIMITS.sns`). */
export interface AttributedTargetLimits {
  /** Its MaximumMessageSize: the range it may be set in, and what it is when not set. */
  readonly messageBytes: { readonly min: number; readonly max: number; readonly default: number };
  readonly batchEntries: number;
  readonly attributes: number;
}

/** What an SQS or SNS batch call answers, entry by entry. */
export interface BatchResponse {
  readonly Successful?: Parameters<typeof entryAnswers>[1];
  readonly Failed?: Parameters<typeof entryAnswers>[2];
}

/** An SQS queue or SNS topic as a target: what the two do not share. */
export interface AttributedTarget<C, B extends string> {
  /** The factory (`sqsTarget`), for its refusals. */
  readonly factory: string;
  /** The queue's URL or the topic's ARN, as given; one ending in `.fifo` is FIFO. */
  readonly address: unknown;
  /** What a good address looks like, and how the refusal of another says it. */
  readonly addressPattern: RegExp;
  readonly addressIs: string;
  /** What `maxMessageBytes` stands for: `the queue's MaximumMessageSize`. */
  readonly sizeIs: string;
  readonly limits: AttributedTargetLimits;
  /** As given in the options; the limits' default when undefined. */
  readonly maxMessageBytes: number | undefined;
  /** The characters the target takes in a body and an attribute value, when it limits them. */
  readonly characters?: RegExp;
  /** The client given, else one made by `newClient` at the first send. */
  readonly client: C | undefined;
  readonly newClient: () => C;
  /** The member of an entry that holds the body: `MessageBody` (SQS), `Message` (SNS). */
  readonly bodyMember: B;
  /** One batch call of these entries (ids `0`, `1`, ...) to `address`. */
  readonly send: (call: { client: C; address: string; entries: (KeyedEntry & Record<B, string>)[]; signal: AbortSignal }) => Promise<BatchResponse>;
  /** Whether a call's error says the target does not exist. */
  readonly isGone: (error: unknown) => boolean;
}

/** The address, checked, and the message size, checked against the service's range. */
function checkedTarget<C, B extends string>(target: AttributedTarget<C, B>): { address: string; maxMessageBytes: number } {
  const { address } = target;
  if (typeof address !== 'string' || !target.addressPattern.test(address)) {
    throw new InboxConfigError(`${target.factory} needs ${target.addressIs}, but "${String(address)}" was given.`);
  }
  const { min, max } = target.limits.messageBytes;
  const maxMessageBytes = target.maxMessageBytes ?? target.limits.messageBytes.default;
  if (!Number.isInteger(maxMessageBytes) || maxMessageBytes < min || maxMessageBytes > max) {
    throw new InboxConfigError(`${target.factory} maxMessageBytes must be ${target.sizeIs}, a whole number from ${min} to ${max}, but ${String(maxMessageBytes)} was given.`);
  }
  return { address, maxMessageBytes };
}

/**
 * A publisher for a target with string message attributes and a MaximumMessageSize (SQS, SNS): the
 * address and the size checked, batches of the service's entries held to that size as a whole,
 * messages checked by `attributedMessage`, each call answered by `answeredCall`.
 *
 * @example
 * ```ts
 * return attributedPublisher({ factory: 'sqsTarget', address: options.queueUrl, limits: AWS_LIMITS.sqs, send, ... });
 * ```
 */
export function attributedPublisher<C, B extends string>(target: AttributedTarget<C, B>): Publisher {
  const { address, maxMessageBytes } = checkedTarget(target);
  const { limits, characters } = target;
  const fifo = address.endsWith('.fifo');
  let client = target.client;
  return {
    fifo,
    maxBatchEntries: limits.batchEntries,
    maxMessageBytes,
    // SQS and SNS hold a whole batch to the same size as one message.
    maxBatchBytes: maxMessageBytes,
    prepare: (message, context) => attributedMessage(message, context, { fifo, maxAttributes: limits.attributes, maxMessageBytes, ...(characters ? { characters } : {}) }),
    publish: (rows, { signal }) => answeredCall(rows, async (batch) => {
      client ??= target.newClient();
      const entries = batch.map((row, i) => ({ ...rowEntry(row, i, fifo, maxMessageBytes), [target.bodyMember]: row.body }) as KeyedEntry & Record<B, string>);
      const response = await target.send({ client, address, entries, signal });
      return entryAnswers(entries.map((entry) => entry.Id), response.Successful, response.Failed);
    }, target.isGone),
  };
}

/**
 * A row as a batch entry but for its body (`keyedEntry`): its attributes, its id as
 * `idempotency-key` (and, on FIFO, as MessageDeduplicationId), its trace context as `traceparent`
 * while there is room (an attribute to spare, and bytes within `maxMessageBytes`), and its group.
 *
 * @example
 * ```ts
 * const entries = batch.map((entry, i) => ({ ...rowEntry(entry, i, fifo, 1_048_576), MessageBody: entry.body }));
 * ```
 */
export function rowEntry(entry: OutboxEntry, index: number, fifo: boolean, maxMessageBytes: number): KeyedEntry {
  // The row's trace context, not the sender's: the relay sends long after the writer's span ended.
  const attributes = tracedAttributes(keyedAttributes(stringValued(entry.attributes), entry.id), entry.traceparent, { body: entry.body, maxBytes: maxMessageBytes });
  return keyedEntry({ id: String(index), attributes, groupId: entry.groupId, deduplicationKey: entry.id }, fifo);
}
