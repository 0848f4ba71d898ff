import type { Message, MessageAttributeValue } from '@aws-sdk/client-sqs';
import { IDEMPOTENCY_KEY_ATTRIBUTE } from '../contract.js';
import { toSqsRecord } from '../sqs/sqs-message-record.js';
import { sqsDefaultKey } from '../sqs/sqs-source.js';

/**
 * How a dead-lettered message's key fares when it is sent back:
 * - `keyed`: its key is the `idempotency-key` attribute or its body's envelope key, which it keeps;
 * - `pinned`: it was keyed by its SQS messageId, which a dead-letter move keeps and any send back
 *   replaces, so the move pins that id as its `idempotency-key` attribute;
 * - `unkeyed`: it was keyed by its FIFO MessageDeduplicationId, which the move into a FIFO DLQ
 *   replaced with its messageId: the key the inbox saw is gone, so sent back it may apply again.
 */
export type DlqKeyKind = 'keyed' | 'pinned' | 'unkeyed';

/** A message received from a DLQ, read as its consumer's default key reads it. */
export interface DlqMessage {
  readonly messageId: string;
  readonly receiptHandle: string;
  readonly body: string;
  /** The key it goes back with: the one the inbox saw, except for `unkeyed`. */
  readonly key: string;
  readonly kind: DlqKeyKind;
  readonly groupId?: string;
  /** Its message attributes as SendMessage takes them, the idempotency key left out (the producer sets it). */
  readonly attributes: Record<string, MessageAttributeValue>;
}

/**
 * A message received from a DLQ (with `MessageSystemAttributeNames` and `MessageAttributeNames`
 * `All`), its key read by the kit's own default (`sqsDefaultKey`) and sorted by what a move does to
 * it. A DLQ holds a message under the messageId it was consumed with (only a redrive, SQS's or
 * this one, gives a new one), so a messageId key can be pinned; a FIFO DLQ holds the messageId in
 * place of the deduplication id, so a deduplication-id key cannot.
 *
 * @example
 * ```ts
 * dlqMessage(received, dlqArn) // { kind: 'pinned', key: '059f36b4-...', ... } for a standard message without the attribute
 * ```
 */
export function dlqMessage(message: Message, dlqArn: string): DlqMessage {
  const record = toSqsRecord(message, { arn: dlqArn, region: dlqArn.split(':')[3] ?? '' });
  const { key, fallback } = sqsDefaultKey(record);
  const attributes = Object.fromEntries(Object.entries(message.MessageAttributes ?? {})
    .filter(([name]) => name !== IDEMPOTENCY_KEY_ATTRIBUTE)
    .map(([name, value]): [string, MessageAttributeValue] => [name, value.BinaryValue === undefined
      ? { DataType: value.DataType, StringValue: value.StringValue ?? '' }
      : { DataType: value.DataType, BinaryValue: value.BinaryValue }]));
  const groupId = record.attributes.MessageGroupId;
  return {
    messageId: record.messageId,
    receiptHandle: record.receiptHandle,
    body: record.body,
    key,
    kind: fallback === undefined ? 'keyed' : fallback === 'messageId' ? 'pinned' : 'unkeyed',
    ...(groupId === undefined ? {} : { groupId }),
    attributes,
  };
}
