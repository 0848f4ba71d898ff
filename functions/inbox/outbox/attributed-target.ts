import { InboxConfigError } from '../errors.js';
import { keyedAttributes, keyedEntry, stringValued, tracedAttributes, type KeyedEntry } from '../producer/sqs-entry.js';
import { answeredCall } from './aws-answers.js';
import { attributedMessage } from './message-checks.js';
import type { OutboxEntry } from './outbox-message.js';
import type { Publisher, PublishAnswer } from './publisher.js';

/** What a target with string message attributes takes (`AWS_LIMITS.sqs`, `AWS_LIMITS.sns`). */
export interface AttributedTargetLimits {
  /** Its MaximumMessageSize: the range it may be set in, and what it is when not set. */
  readonly messageBytes: { readonly min: number; readonly max: number; readonly default: number };
  readonly batchEntries: number;
  readonly attributes: number;
}

/** An SQS queue or SNS topic as a target: what the two do not share. */
export interface AttributedTarget {
  /** The factory (`sqsTarget`), for the refusal of a bad `maxMessageBytes`. */
  readonly factory: string;
  /** What `maxMessageBytes` stands for: `the queue's MaximumMessageSize`. */
  readonly sizeIs: string;
  readonly fifo: boolean;
  readonly limits: AttributedTargetLimits;
  /** As given in the options; the limits' default when undefined. */
  readonly maxMessageBytes: number | undefined;
  /** The characters the target takes in a body and an attribute value, when it limits them. */
  readonly characters?: RegExp;
  /** One batch call, answered entry by entry in order. */
  readonly send: (batch: readonly OutboxEntry[], signal: AbortSignal) => Promise<PublishAnswer[]>;
  /** Whether a call's error says the target does not exist. */
  readonly isGone: (error: unknown) => boolean;
}

/**
 * A publisher for a target with string message attributes and a MaximumMessageSize (SQS, SNS): the
 * size checked against the service's range, batches of the service's entries held to that size as a
 * whole, messages checked by `attributedMessage`, each call answered by `answeredCall`.
 *
 * @example
 * ```ts
 * return attributedPublisher({ factory: 'sqsTarget', sizeIs: "the queue's MaximumMessageSize", fifo, limits: AWS_LIMITS.sqs, maxMessageBytes, send, isGone });
 * ```
 */
export function attributedPublisher(target: AttributedTarget): Publisher {
  const { fifo, limits, characters } = target;
  const { min, max } = limits.messageBytes;
  const maxMessageBytes = target.maxMessageBytes ?? limits.messageBytes.default;
  if (!Number.isInteger(maxMessageBytes) || maxMessageBytes < min || maxMessageBytes > max) {
    throw new InboxConfigError(`${target.factory} maxMessageBytes must be ${target.sizeIs}, a whole number from ${min} to ${max}, but ${String(maxMessageBytes)} was given.`);
  }
  return {
    fifo,
    maxBatchEntries: limits.batchEntries,
    maxMessageBytes,
    // SQS and SNS hold a whole batch to the same size as one message.
    maxBatchBytes: maxMessageBytes,
    prepare: (message, context) => attributedMessage(message, context, { fifo, maxAttributes: limits.attributes, maxMessageBytes, ...(characters ? { characters } : {}) }),
    publish: (entries, { signal }) => answeredCall(entries, (batch) => target.send(batch, signal), target.isGone),
  };
}

/**
 * A row as a batch entry but for its body (`keyedEntry`): its attributes, its id as
 * `idempotency-key` (and, on FIFO, as MessageDeduplicationId), its trace context as `traceparent`
 * while there is room, and its group.
 *
 * @example
 * ```ts
 * const entries = batch.map((entry, i) => ({ ...rowEntry(entry, i, fifo), MessageBody: entry.body }));
 * ```
 */
export function rowEntry(entry: OutboxEntry, index: number, fifo: boolean): KeyedEntry {
  // The row's trace context, not the sender's: the relay sends long after the writer's span ended.
  const attributes = tracedAttributes(keyedAttributes(stringValued(entry.attributes), entry.id), entry.traceparent);
  return keyedEntry({ id: String(index), attributes, groupId: entry.groupId, deduplicationKey: entry.id }, fifo);
}
