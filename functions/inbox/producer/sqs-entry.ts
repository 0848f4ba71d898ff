import { createHash } from 'node:crypto';
import type { MessageAttributeValue, SendMessageBatchRequestEntry } from '@aws-sdk/client-sqs';
import { AWS_LIMITS } from '../aws-limits.js';
import { IDEMPOTENCY_KEY_ATTRIBUTE } from '../contract.js';
import { traceAttributes } from '../trace/outgoing-context.js';

/** Message attributes as SQS (and SNS) take them. */
export type MessageAttributes = Record<string, MessageAttributeValue>;

/**
 * The MessageDeduplicationId of a key: the key itself, or its sha-256 in hex when it is not a valid
 * id, so that any key still deduplicates.
 *
 * @example
 * ```ts
 * deduplicationIdOf('order-1') // 'order-1'
 * ```
 */
export function deduplicationIdOf(key: string): string {
  return AWS_LIMITS.sqs.fifoId.test(key) ? key : createHash('sha256').update(key, 'utf8').digest('hex');
}

/**
 * String attributes (the outbox's) as message attributes.
 *
 * @example
 * ```ts
 * stringValued({ source: 'web' }) // { source: { DataType: 'String', StringValue: 'web' } }
 * ```
 */
export function stringValued(attributes: Readonly<Record<string, string>>): MessageAttributes {
  const valued: MessageAttributes = {};
  for (const [name, value] of Object.entries(attributes)) valued[name] = { DataType: 'String', StringValue: value };
  return valued;
}

/**
 * The given attributes with the key as `idempotency-key`, which the consumer's inbox reads.
 *
 * @example
 * ```ts
 * keyedAttributes({}, 'order-1') // { 'idempotency-key': { DataType: 'String', StringValue: 'order-1' } }
 * ```
 */
export function keyedAttributes(given: Readonly<MessageAttributes>, key: string): MessageAttributes {
  return { ...given, [IDEMPOTENCY_KEY_ATTRIBUTE]: { DataType: 'String', StringValue: key } };
}

/** A message's body and the most its target takes, for a trace context that goes only where it fits. */
export interface SizeRoom {
  readonly body: string;
  readonly maxBytes: number;
}

/**
 * The attributes with a trace context as `traceparent` while there is room: the one given (the
 * outbox row's, written long before the send), else the active span's. Room is an attribute to
 * spare and, with `room`, the bytes: a message that fits without its trace context goes without it
 * rather than not at all.
 *
 * @example
 * ```ts
 * tracedAttributes(keyedAttributes({}, key), row.traceparent, { body: row.body, maxBytes: 1_048_576 })
 * ```
 */
export function tracedAttributes(attributes: Readonly<MessageAttributes>, traceparent?: string, room?: SizeRoom): MessageAttributes {
  const traced = { ...attributes, ...stringValued(traceAttributes(Object.keys(attributes), AWS_LIMITS.sqs.attributes, traceparent)) };
  return room === undefined || messageSize(room.body, traced) <= room.maxBytes ? traced : { ...attributes };
}

/**
 * The bytes a trace context adds to a message as its `traceparent` attribute: the one given, else
 * the active span's; 0 with neither.
 *
 * @example
 * ```ts
 * traceAttributeBytes('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01') // 72
 * ```
 */
export function traceAttributeBytes(traceparent?: string): number {
  return messageSize('', stringValued(traceAttributes([], 1, traceparent)));
}

/**
 * A message's size as SQS (and SNS) count it against their limits: the body and each attribute's
 * name, data type and value, in UTF-8 (a binary value by its bytes).
 *
 * @example
 * ```ts
 * messageSize('hi', { source: { DataType: 'String', StringValue: 'web' } }) // 2 + 6 + 6 + 3
 * ```
 */
export function messageSize(body: string, attributes: Readonly<MessageAttributes>): number {
  let size = Buffer.byteLength(body, 'utf8');
  for (const [name, value] of Object.entries(attributes)) {
    size += Buffer.byteLength(name, 'utf8') + Buffer.byteLength(value.DataType ?? '', 'utf8');
    size += value.BinaryValue !== undefined ? value.BinaryValue.length : Buffer.byteLength(value.StringValue ?? '', 'utf8');
  }
  return size;
}

/** One message as a batch entry: what the producer and the outbox hand over. */
export interface EntryParts {
  /** The entry's id in its batch. */
  readonly id: string;
  readonly body: string;
  /** The attributes as sent, the key and the trace context among them. */
  readonly attributes: MessageAttributes;
  readonly groupId?: string | undefined;
  /** On FIFO, what deduplicates the message (the key, or an id of its own). */
  readonly deduplicationKey: string;
}

/** The members an SQS SendMessageBatch entry and an SNS PublishBatch entry share. */
export interface KeyedEntry {
  Id: string;
  MessageAttributes: MessageAttributes;
  MessageGroupId?: string;
  MessageDeduplicationId?: string;
}

/**
 * A batch entry but for its body, as SQS and SNS both take it: the attributes, the message group
 * when there is one and, on FIFO, the MessageDeduplicationId (`deduplicationIdOf` the deduplication key).
 *
 * @example
 * ```ts
 * const entry: PublishBatchRequestEntry = { ...keyedEntry(parts, fifo), Message: parts.body };
 * ```
 */
export function keyedEntry(parts: Omit<EntryParts, 'body'>, fifo: boolean): KeyedEntry {
  const entry: KeyedEntry = { Id: parts.id, MessageAttributes: parts.attributes };
  if (parts.groupId !== undefined) entry.MessageGroupId = parts.groupId;
  if (fifo) entry.MessageDeduplicationId = deduplicationIdOf(parts.deduplicationKey);
  return entry;
}

/**
 * A SendMessageBatch entry (`keyedEntry` with its body).
 *
 * @example
 * ```ts
 * sqsBatchEntry({ id: '0', body, attributes, groupId: 'customer-1', deduplicationKey: key }, true)
 * ```
 */
export function sqsBatchEntry(parts: EntryParts, fifo: boolean): SendMessageBatchRequestEntry {
  return { ...keyedEntry(parts, fifo), MessageBody: parts.body };
}
