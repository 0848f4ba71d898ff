import { IDEMPOTENCY_KEY_ATTRIBUTE } from '../contract.js';

/**
 * Amazon SQS since 2025: a message, its attributes counted, and a whole SendMessageBatch are both at
 * most 1 MiB (a queue's MaximumMessageSize may be set lower, from 1 KiB: give the target that). At
 * most 10 entries a batch and 10 attributes a message.
 */
export const SQS_LIMITS = { maxMessageBytes: 1_048_576, maxBatchBytes: 1_048_576, maxBatchEntries: 10, maxAttributes: 10 } as const;

/**
 * Amazon SNS: a topic takes messages of 256 KiB (attributes counted) unless its MaximumMessageSize
 * is raised, to 1 MiB at most; a PublishBatch, all its messages counted, is held to the same. At
 * most 10 entries a batch.
 */
export const SNS_LIMITS = { maxMessageBytes: 262_144, ceilingBytes: 1_048_576, maxBatchEntries: 10, maxAttributes: 10 } as const;

/**
 * Amazon EventBridge: the entries of one PutEvents call must total less than 1 MB (1,048,576
 * bytes), each entry counted as its Source, DetailType, Detail and Resources in UTF-8, plus 14 bytes
 * when it has a Time; at most 10 entries a call; a detail-type of 128 characters at most.
 */
export const EVENTBRIDGE_LIMITS = { maxBatchBytes: 1_048_575, maxBatchEntries: 10, maxDetailTypeLength: 128 } as const;

/**
 * The bytes SQS (and SNS) count for string message attributes: each name, its data type and its
 * value in UTF-8, the `idempotency-key` the outbox adds included.
 *
 * @example
 * ```ts
 * stringAttributesSize({ source: 'web' }, 36) // 6 + 6 + 3 + the key's 15 + 6 + 36
 * ```
 */
export function stringAttributesSize(attributes: Readonly<Record<string, string>>, keyLength: number): number {
  let size = Buffer.byteLength(IDEMPOTENCY_KEY_ATTRIBUTE, 'utf8') + 'String'.length + keyLength;
  for (const [name, value] of Object.entries(attributes)) size += Buffer.byteLength(name, 'utf8') + 'String'.length + Buffer.byteLength(value, 'utf8');
  return size;
}

/**
 * A PutEvents entry's size as EventBridge computes it (no Time, no Resources: the outbox sends neither).
 *
 * @example
 * ```ts
 * eventBridgeEntrySize({ source: 'orders', detailType: 'OrderShipped', detail: '{"id":1}' }) // 6 + 12 + 8
 * ```
 */
export function eventBridgeEntrySize(entry: { readonly source: string; readonly detailType: string; readonly detail: string }): number {
  return Buffer.byteLength(entry.source, 'utf8') + Buffer.byteLength(entry.detailType, 'utf8') + Buffer.byteLength(entry.detail, 'utf8');
}
