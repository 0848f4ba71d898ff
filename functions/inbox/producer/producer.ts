import { createHash } from 'node:crypto';
import { SendMessageBatchCommand, type MessageAttributeValue, type SendMessageBatchRequestEntry, type SQSClient } from '@aws-sdk/client-sqs';
import { InboxConfigError } from '../errors.js';
import { DEFAULTS } from '../options.js';
import { backoffDelay, sleep } from '../retry.js';
import { uuidv7 } from './uuid-v7.js';

/** One message for `sendMessages`. */
export interface OutgoingMessage {
  /** The body: a string as it is, anything else as JSON. */
  readonly body: string | object;
  /**
   * The idempotency key: the same key for every send of the same message, so the consumer's inbox
   * sees a producer retry as a duplicate.
   * @default the `idempotency-key` attribute given, else a new UUIDv7
   */
  readonly key?: string;
  /** The message group; required on a FIFO queue. */
  readonly groupId?: string;
  /**
   * Message attributes besides the idempotency key.
   * @default none
   */
  readonly attributes?: Readonly<Record<string, MessageAttributeValue>>;
}

/** Options of `sendMessages`. */
export interface SendMessagesOptions {
  /**
   * Attempts of each entry, the first one included, before it is reported failed.
   * @default 4
   */
  readonly maxAttempts?: number;
  /**
   * The first retry waits up to this long (full jitter), doubling each attempt up to `maxDelayMs`.
   * @default 50
   */
  readonly baseDelayMs?: number;
  /**
   * The longest wait between attempts.
   * @default 2000
   */
  readonly maxDelayMs?: number;
  /**
   * Bytes of a batch (bodies and attributes, as SQS counts them) and of one message.
   * @default 262144 (256 KiB, the SQS limit)
   */
  readonly maxBatchBytes?: number;
}

/** A message SQS took. */
export interface SentMessage {
  /** Its position in the `messages` given. */
  readonly index: number;
  readonly key: string;
  readonly messageId: string;
  /** On FIFO queues. */
  readonly sequenceNumber?: string;
}

/** A message that was not sent: refused before sending, refused by SQS, or out of attempts. */
export interface FailedMessage {
  readonly index: number;
  readonly key: string;
  /** `InvalidMessage` and `MessageTooLong` are the producer's own refusals; others are SQS's codes. */
  readonly code: string;
  readonly message: string;
  /** Whether sending it again unchanged can never work. */
  readonly senderFault: boolean;
  readonly attempts: number;
}

/** What `sendMessages` did with every message. */
export interface SendMessagesResult {
  /** The idempotency key of each message, in the order given; keep them to send the same messages again. */
  readonly keys: readonly string[];
  readonly sent: readonly SentMessage[];
  readonly failed: readonly FailedMessage[];
}

const PRODUCER_DEFAULTS = { maxAttempts: 4, baseDelayMs: 50, maxDelayMs: 2000, maxBatchBytes: 262_144 } as const;
const MAX_ENTRIES = 10;
// MessageDeduplicationId: 1 to 128 alphanumerics and ASCII punctuation.
const DEDUPLICATION_ID = /^[\x21-\x7e]{1,128}$/;
const THROTTLING = /Throttl|RequestThrottled|OverLimit|SlowDown/;

interface Prepared {
  readonly index: number;
  readonly key: string;
  readonly entry: SendMessageBatchRequestEntry;
  readonly size: number;
}

type Refusal = Omit<FailedMessage, 'attempts'>;

function attributesSize(attributes: Readonly<Record<string, MessageAttributeValue>>): number {
  let size = 0;
  for (const [name, value] of Object.entries(attributes)) {
    size += Buffer.byteLength(name, 'utf8') + Buffer.byteLength(value.DataType ?? '', 'utf8');
    size += value.BinaryValue !== undefined ? value.BinaryValue.length : Buffer.byteLength(value.StringValue ?? '', 'utf8');
  }
  return size;
}

function keyOf(message: OutgoingMessage): string | undefined {
  if (message.key !== undefined) return message.key;
  const given = message.attributes?.[DEFAULTS.idempotencyKeyAttribute];
  return given?.StringValue ?? uuidv7();
}

// A key that is not a valid deduplication id still deduplicates: by its sha-256 in hex.
function deduplicationIdOf(key: string): string {
  return DEDUPLICATION_ID.test(key) ? key : createHash('sha256').update(key, 'utf8').digest('hex');
}

function prepare(message: OutgoingMessage, index: number, fifo: boolean, maxBytes: number): Prepared | Refusal {
  const refuse = (key: string, code: string, text: string): Refusal => ({ index, key, code, message: text, senderFault: true });
  if (typeof message !== 'object' || message === null) return refuse('', 'InvalidMessage', `message ${index} is not an object with a body.`);
  const key = keyOf(message);
  if (typeof key !== 'string' || key === '' || key.length > DEFAULTS.maxKeyLength) {
    return refuse(String(key ?? ''), 'InvalidMessage', `message ${index} has a key that is not 1 to ${DEFAULTS.maxKeyLength} characters.`);
  }
  let body: string | undefined;
  try {
    body = typeof message.body === 'string' ? message.body : JSON.stringify(message.body);
  } catch (error) {
    return refuse(key, 'InvalidMessage', `message ${index} has a body that is not JSON: ${error instanceof Error ? error.message : String(error)}.`);
  }
  if (body === undefined || body === '') return refuse(key, 'InvalidMessage', `message ${index} has an empty body.`);
  if (fifo && (typeof message.groupId !== 'string' || message.groupId === '')) {
    return refuse(key, 'InvalidMessage', `message ${index} has no groupId: every message on a FIFO queue needs one.`);
  }
  const attributes: Record<string, MessageAttributeValue> = {
    ...message.attributes,
    [DEFAULTS.idempotencyKeyAttribute]: { DataType: 'String', StringValue: key },
  };
  const size = Buffer.byteLength(body, 'utf8') + attributesSize(attributes);
  if (size > maxBytes) return refuse(key, 'MessageTooLong', `message ${index} is ${size} bytes with its attributes; SQS takes at most ${maxBytes}.`);
  const entry: SendMessageBatchRequestEntry = { Id: String(index), MessageBody: body, MessageAttributes: attributes };
  if (message.groupId !== undefined) entry.MessageGroupId = message.groupId;
  if (fifo) entry.MessageDeduplicationId = deduplicationIdOf(key);
  return { index, key, entry, size };
}

// Consecutive messages, at most 10 and `maxBytes` a batch, in the order given (FIFO order depends on
// it). On FIFO a batch holds one message of each group at most: an entry SQS fails is retried before
// the next batch, so it can never land behind a later message of its own group.
function batches(prepared: readonly Prepared[], maxBytes: number, fifo: boolean): Prepared[][] {
  const result: Prepared[][] = [];
  let current: Prepared[] = [];
  let groups = new Set<string | undefined>();
  let bytes = 0;
  for (const item of prepared) {
    const groupTaken = fifo && groups.has(item.entry.MessageGroupId);
    if (current.length === MAX_ENTRIES || bytes + item.size > maxBytes || groupTaken) {
      result.push(current);
      current = [];
      groups = new Set();
      bytes = 0;
    }
    current.push(item);
    groups.add(item.entry.MessageGroupId);
    bytes += item.size;
  }
  if (current.length > 0) result.push(current);
  return result;
}

function isRetryable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return true;
  const details = error as { $fault?: string; $retryable?: unknown; $metadata?: { httpStatusCode?: number }; name?: string };
  if (details.$retryable !== undefined || details.$fault === 'server') return true;
  if (THROTTLING.test(details.name ?? '')) return true;
  // No HTTP status: the call never got an answer (a network error), so it may succeed again.
  return details.$metadata?.httpStatusCode === undefined;
}

function errorSummary(error: unknown): { code: string; message: string } {
  if (error instanceof Error) return { code: error.name, message: error.message };
  return { code: 'Error', message: String(error) };
}

/**
 * Sends messages to an SQS queue so that a consumer behind `inbox()` applies each exactly once: every
 * message carries a stable idempotency key (the caller's, or a new UUIDv7) as the `idempotency-key`
 * string attribute and, on a FIFO queue (URL ending in `.fifo`), as MessageDeduplicationId (its
 * sha-256 when the key is not a valid one). Messages go in order in batches of at most 10 entries
 * and 256 KiB; entries SQS failed on its side, and batches whose call failed in a retryable way,
 * are sent again with the same keys, with jittered backoff, up to `maxAttempts`. A message that
 * cannot be sent ends in `failed` with the reason; nothing is thrown for a message's content.
 * Batches go one after another, a batch's retries before the next batch, and on FIFO a batch holds
 * at most one message of each group, so a group keeps its order through retries (a FIFO workload of
 * one group goes one message a call).
 *
 * @example
 * ```ts
 * const { keys, failed } = await sendMessages(client, queueUrl, orders.map((order) => ({ body: order, groupId: order.customerId })));
 * if (failed.length > 0) throw new Error(`${failed.length} orders not sent: ${failed[0]!.message}`);
 * ```
 */
export async function sendMessages(
  client: SQSClient,
  queueUrl: string,
  messages: readonly OutgoingMessage[],
  options: SendMessagesOptions = {},
): Promise<SendMessagesResult> {
  const { maxAttempts, baseDelayMs, maxDelayMs, maxBatchBytes } = { ...PRODUCER_DEFAULTS, ...options };
  if (!client || typeof client.send !== 'function') throw new InboxConfigError('sendMessages needs an SQSClient.');
  if (typeof queueUrl !== 'string' || queueUrl === '') throw new InboxConfigError('sendMessages needs the queue URL.');
  if (!Array.isArray(messages)) throw new InboxConfigError('sendMessages takes an array of messages.');
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1 || maxAttempts > 20) throw new InboxConfigError(`maxAttempts must be a whole number from 1 to 20, but ${String(maxAttempts)} was given.`);
  if (!Number.isInteger(maxBatchBytes) || maxBatchBytes < 1024 || maxBatchBytes > 1_048_576) {
    throw new InboxConfigError(`maxBatchBytes must be a whole number from 1024 to 1048576, but ${String(maxBatchBytes)} was given.`);
  }
  const fifo = queueUrl.endsWith('.fifo');
  const keys: string[] = [];
  const sent: SentMessage[] = [];
  const failed: FailedMessage[] = [];
  const ready: Prepared[] = [];
  messages.forEach((message, index) => {
    const prepared = prepare(message, index, fifo, maxBatchBytes);
    keys.push(prepared.key);
    if ('entry' in prepared) ready.push(prepared);
    else failed.push({ ...prepared, attempts: 0 });
  });

  for (const batch of batches(ready, maxBatchBytes, fifo)) {
    let pending = batch;
    let lastError: { code: string; message: string } = { code: 'InternalError', message: 'not sent' };
    for (let attempt = 1; pending.length > 0; attempt += 1) {
      const byId = new Map(pending.map((item) => [item.entry.Id!, item]));
      const retry: Prepared[] = [];
      try {
        const response = await client.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: pending.map((item) => item.entry) }));
        for (const success of response.Successful ?? []) {
          const item = byId.get(success.Id ?? '');
          if (item === undefined) continue;
          byId.delete(item.entry.Id!);
          sent.push({ index: item.index, key: item.key, messageId: success.MessageId ?? '', ...(success.SequenceNumber ? { sequenceNumber: success.SequenceNumber } : {}) });
        }
        for (const failure of response.Failed ?? []) {
          const item = byId.get(failure.Id ?? '');
          if (item === undefined) continue;
          byId.delete(item.entry.Id!);
          lastError = { code: failure.Code ?? 'InternalError', message: failure.Message ?? '' };
          if (failure.SenderFault) failed.push({ index: item.index, key: item.key, ...lastError, senderFault: true, attempts: attempt });
          else retry.push(item);
        }
        // An entry in neither list was not acknowledged: send it again, the key makes that harmless.
        retry.push(...byId.values());
      } catch (error) {
        lastError = errorSummary(error);
        if (!isRetryable(error)) {
          failed.push(...pending.map((item) => ({ index: item.index, key: item.key, ...lastError, senderFault: true, attempts: attempt })));
          break;
        }
        retry.push(...pending);
      }
      if (retry.length > 0 && attempt >= maxAttempts) {
        failed.push(...retry.map((item) => ({ index: item.index, key: item.key, ...lastError, senderFault: false, attempts: attempt })));
        break;
      }
      pending = retry.sort((a, b) => a.index - b.index);
      if (pending.length > 0) await sleep(backoffDelay(attempt, { baseMs: baseDelayMs, maxMs: maxDelayMs }));
    }
  }
  sent.sort((a, b) => a.index - b.index);
  failed.sort((a, b) => a.index - b.index);
  return { keys, sent, failed };
}
