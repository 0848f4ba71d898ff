import { OUTBOX_TARGET_NAME } from '../contract.js';
import { InboxConfigError } from '../errors.js';
import { bodyText, checkSize, groupIdOf, stringAttributes } from './message-checks.js';
import type { OutboxEntry, OutboxMessage, PreparedMessage } from './outbox-message.js';

/**
 * What a target answered for one entry: taken; to be sent again (the row stays for a later try
 * and then the relay); or refused for ever (the row is marked failed with the reason and counted,
 * never sent again).
 */
export type PublishAnswer =
  | { readonly kind: 'sent' }
  | { readonly kind: 'retry'; readonly reason: string }
  | { readonly kind: 'refused'; readonly reason: string };

/** What a publish call is given besides its entries. */
export interface PublishOptions {
  /** Aborted when the invocation is out of time: stop, and answer `retry` for what did not go. */
  readonly signal: AbortSignal;
}

/** What a row is checked in the light of when it is written. */
export interface PrepareContext {
  /** The row's id, which goes out as the idempotency key. */
  readonly id: string;
  /** The consumer writing it. */
  readonly consumer: string;
  /** The target's name. */
  readonly target: string;
}

/**
 * A target the outbox sends to. The SQS, SNS and EventBridge ones are built in (`sqsTarget`,
 * `snsTarget`, `eventBridgeTarget`); anything else is one `publish` function. The outbox batches
 * rows by the limits given, retries the entries answered `retry` with backoff, keeps a FIFO group's
 * order (one entry of a group per call, nothing after an entry that did not go), and marks each row
 * by its answer. Send `entry.id` as the idempotency key: the same row may be sent again (after a
 * crash between the send and its mark), and the receiver must take it once.
 *
 * @example
 * ```ts
 * const webhook: Publisher = {
 *   async publish([entry], { signal }) {
 *     const response = await fetch('https://partner.example/orders', {
 *       method: 'POST', body: entry!.body, signal,
 *       headers: { 'content-type': 'application/json', 'Idempotency-Key': entry!.id },
 *     });
 *     if (response.ok) return [{ kind: 'sent' }];
 *     const reason = `HTTP ${response.status}`;
 *     return [response.status >= 500 || response.status === 429 ? { kind: 'retry', reason } : { kind: 'refused', reason }];
 *   },
 * };
 * ```
 */
export interface Publisher {
  /**
   * Whether the target keeps the order of a message group (FIFO): its messages need a groupId, and
   * a group's rows go in the order they were written, never overtaking one that did not go.
   * @default false
   */
  readonly fifo?: boolean;
  /**
   * Entries a `publish` call takes.
   * @default 1
   */
  readonly maxBatchEntries?: number;
  /**
   * The largest message, in bytes as `prepare` measures it; a larger one is refused when its row is written.
   * @default 262144
   */
  readonly maxMessageBytes?: number;
  /**
   * Bytes of one `publish` call, its entries' sizes summed.
   * @default maxMessageBytes
   */
  readonly maxBatchBytes?: number;
  /**
   * Checks a message when its row is written and answers it as the row holds it; throws
   * `OutboxMessageRefusedError` for a message the target can never take.
   * @default the body (a string, or JSON) and string attributes checked, a groupId required on FIFO,
   * the size their UTF-8 bytes
   */
  readonly prepare?: (message: OutboxMessage, context: PrepareContext) => PreparedMessage;
  /** Sends the entries and answers each, in order. A throw answers `retry` for every entry. */
  publish(entries: readonly OutboxEntry[], options: PublishOptions): Promise<readonly PublishAnswer[]>;
}

/** A publisher with its limits settled. */
export interface ResolvedPublisher {
  readonly name: string;
  readonly fifo: boolean;
  readonly maxBatchEntries: number;
  readonly maxMessageBytes: number;
  readonly maxBatchBytes: number;
  prepare(message: OutboxMessage, context: PrepareContext): PreparedMessage;
  publish(entries: readonly OutboxEntry[], options: PublishOptions): Promise<readonly PublishAnswer[]>;
}

const PUBLISHER_DEFAULTS = { fifo: false, maxBatchEntries: 1, maxMessageBytes: 262_144 } as const;

function prepareDefault(fifo: boolean, maxMessageBytes: number) {
  return (message: OutboxMessage, { target }: PrepareContext): PreparedMessage => {
    const body = bodyText(target, message);
    const attributes = stringAttributes(target, message, Number.POSITIVE_INFINITY);
    const groupId = groupIdOf(target, message, fifo ? 'required' : 'optional');
    const attributeBytes = Object.entries(attributes).reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + Buffer.byteLength(value), 0);
    const sizeBytes = checkSize(target, Buffer.byteLength(body, 'utf8') + attributeBytes, maxMessageBytes);
    return { body, attributes, groupId, detailType: typeof message.detailType === 'string' ? message.detailType : undefined, sizeBytes };
  };
}

function wholeNumber(name: string, field: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new InboxConfigError(`outbox target ${name}: ${field} must be a whole number from ${min} to ${max}, but ${String(value)} was given.`);
  }
  return value;
}

/**
 * A target's publisher with its defaults, checked once when the options are.
 *
 * @example
 * ```ts
 * resolvePublisher('shipped', sqsTarget({ queueUrl })).maxBatchEntries // 10
 * ```
 */
export function resolvePublisher(name: string, publisher: Publisher): ResolvedPublisher {
  if (!OUTBOX_TARGET_NAME.test(name)) throw new InboxConfigError(`outbox target names are 1 to 64 letters, digits or ._- starting with a letter or digit, but "${name}" was given.`);
  if (typeof publisher !== 'object' || publisher === null || typeof publisher.publish !== 'function') {
    throw new InboxConfigError(`outbox target ${name} must be a Publisher (an object with a publish function): sqsTarget(...), snsTarget(...), eventBridgeTarget(...) or your own.`);
  }
  if (publisher.prepare !== undefined && typeof publisher.prepare !== 'function') throw new InboxConfigError(`outbox target ${name}: prepare must be a function.`);
  const fifo = publisher.fifo ?? PUBLISHER_DEFAULTS.fifo;
  const maxBatchEntries = wholeNumber(name, 'maxBatchEntries', publisher.maxBatchEntries ?? PUBLISHER_DEFAULTS.maxBatchEntries, 1, 100);
  const maxMessageBytes = wholeNumber(name, 'maxMessageBytes', publisher.maxMessageBytes ?? PUBLISHER_DEFAULTS.maxMessageBytes, 1, 16 * 1_048_576);
  const maxBatchBytes = wholeNumber(name, 'maxBatchBytes', publisher.maxBatchBytes ?? maxMessageBytes, maxMessageBytes, 64 * 1_048_576);
  const prepare = publisher.prepare?.bind(publisher) ?? prepareDefault(fifo, maxMessageBytes);
  return { name, fifo, maxBatchEntries, maxMessageBytes, maxBatchBytes, prepare, publish: publisher.publish.bind(publisher) };
}

/**
 * Calls a publisher and answers every entry, whatever it did: a throw, or an answer missing, is a
 * `retry` (the row stays and goes again).
 *
 * @example
 * ```ts
 * const answers = await publishSafely(publisher, entries, signal); // answers.length === entries.length
 * ```
 */
export async function publishSafely(publisher: ResolvedPublisher, entries: readonly OutboxEntry[], signal: AbortSignal): Promise<PublishAnswer[]> {
  try {
    const answers = await publisher.publish(entries, { signal });
    return entries.map((_, i) => {
      const answer = Array.isArray(answers) ? answers[i] : undefined;
      if (answer?.kind === 'sent') return answer;
      if (answer?.kind === 'refused' || answer?.kind === 'retry') return { kind: answer.kind, reason: String(answer.reason) };
      return { kind: 'retry', reason: `the publisher of target ${publisher.name} gave no answer for this entry` };
    });
  } catch (error) {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return entries.map(() => ({ kind: 'retry', reason }));
  }
}
