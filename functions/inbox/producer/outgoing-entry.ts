import { createHash } from 'node:crypto';
import type { MessageAttributeValue, SendMessageBatchRequestEntry } from '@aws-sdk/client-sqs';
import { IDEMPOTENCY_KEY_ATTRIBUTE, MAX_KEY_LENGTH } from '../contract.js';
import type { FailedMessage, OutgoingMessage } from './types.js';
import { uuidv7 } from './uuid-v7.js';
import { MAX_MESSAGE_ATTRIBUTES, traceAttributes } from '../trace/outgoing-context.js';

// MessageDeduplicationId: 1 to 128 alphanumerics and ASCII punctuation.
const DEDUPLICATION_ID = /^[\x21-\x7e]{1,128}$/;

/** A message ready to send: its batch entry and its size as SQS counts it. */
export interface Prepared {
  readonly index: number;
  readonly key: string;
  readonly entry: SendMessageBatchRequestEntry;
  readonly size: number;
}

/** A message refused before sending. */
export type Refusal = Omit<FailedMessage, 'attempts'>;

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
  const given = message.attributes?.[IDEMPOTENCY_KEY_ATTRIBUTE];
  return given?.StringValue ?? uuidv7();
}

// A key that is not a valid deduplication id still deduplicates: by its sha-256 in hex.
function deduplicationIdOf(key: string): string {
  return DEDUPLICATION_ID.test(key) ? key : createHash('sha256').update(key, 'utf8').digest('hex');
}

/**
 * A message as a SendMessageBatch entry: its key as the `idempotency-key` attribute and, on FIFO,
 * as MessageDeduplicationId, with the active span's context as `traceparent` while there is room; or why it cannot be sent (no body, no group on FIFO, too large).
 *
 * @example
 * ```ts
 * const prepared = prepare({ body: { orderId }, groupId: 'customer-1' }, 0, true, 262_144);
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
  const attributes: Record<string, MessageAttributeValue> = {
    ...message.attributes,
    [IDEMPOTENCY_KEY_ATTRIBUTE]: { DataType: 'String', StringValue: key },
  };
  for (const [name, value] of Object.entries(traceAttributes(Object.keys(attributes), MAX_MESSAGE_ATTRIBUTES))) attributes[name] = { DataType: 'String', StringValue: value };
  const size = Buffer.byteLength(body, 'utf8') + attributesSize(attributes);
  if (size > maxBytes) return refuse(key, 'MessageTooLong', `message ${index} is ${size} bytes with its attributes; SQS takes at most ${maxBytes}.`);
  const entry: SendMessageBatchRequestEntry = { Id: String(index), MessageBody: body, MessageAttributes: attributes };
  if (message.groupId !== undefined) entry.MessageGroupId = message.groupId;
  if (fifo) entry.MessageDeduplicationId = deduplicationIdOf(message.deduplicationId ?? key);
  return { index, key, entry, size };
}
