import type { SendMessageBatchRequestEntry } from '@aws-sdk/client-sqs';
import { IDEMPOTENCY_KEY_ATTRIBUTE, MAX_KEY_LENGTH } from '../contract.js';
import { keyedAttributes, messageSize, sqsBatchEntry, tracedAttributes } from './sqs-entry.js';
import type { FailedMessage, OutgoingMessage } from './types.js';
import { uuidv7 } from './uuid-v7.js';

/** A message ready to send: its batch entry and its size as SQS counts it. */
export interface Prepared {
  readonly index: number;
  readonly key: string;
  readonly entry: SendMessageBatchRequestEntry;
  readonly size: number;
}

/** A message refused before sending. */
export type Refusal = Omit<FailedMessage, 'attempts'>;

function keyOf(message: OutgoingMessage): string | undefined {
  if (message.key !== undefined) return message.key;
  const given = message.attributes?.[IDEMPOTENCY_KEY_ATTRIBUTE];
  return given?.StringValue ?? uuidv7();
}

/**
 * A message as a SendMessageBatch entry: its key as the `idempotency-key` attribute and, on FIFO,
 * as MessageDeduplicationId, with the active span's context as `traceparent` while there is room; or why it cannot be sent (no body, no group on FIFO, too large).
 *
 * @example
 * ```ts
 * const prepared = prepare({ body: { orderId }, groupId: 'customer-1' }, 0, true, 1_048_576);
 * ```
 */
export function prepare(message: OutgoingMessage, index: number, fifo: boolean, maxBytes: number): Prepared | Refusal {
  const refuse = (key: string, code: string, text: string): Refusal => ({ index, key, code, message: text, senderFault: true });
  if (typeof message !== 'object' || message === null) return refuse('', 'InvalidMessage', `message ${index} is not an object with a body.`);
  const key = keyOf(message);
  if (typeof key !== 'string' || key === '' || key.length > MAX_KEY_LENGTH) {
    return refuse(String(key ?? ''), 'InvalidMessage', `message ${index} has a key that is not 1 to ${MAX_KEY_LENGTH} characters.`);
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
  const attributes = tracedAttributes(keyedAttributes(message.attributes ?? {}, key), undefined, { body, maxBytes });
  const size = messageSize(body, attributes);
  if (size > maxBytes) return refuse(key, 'MessageTooLong', `message ${index} is ${size} bytes with its attributes; SQS takes at most ${maxBytes}.`);
  const entry = sqsBatchEntry({ id: String(index), body, attributes, groupId: message.groupId, deduplicationKey: message.deduplicationId ?? key }, fifo);
  return { index, key, entry, size };
}
