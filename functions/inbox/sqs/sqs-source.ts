import type { SQSRecord } from 'aws-lambda';
import { IDEMPOTENCY_KEY_ATTRIBUTE } from '../contract.js';
import type { KeptMessage } from '../claim/kept-message.js';
import type { DefaultKey, RecordSource } from '../pipeline/record-source.js';
import { sqsRecordContext } from '../trace/record-context.js';
import { envelopeIn, envelopeOf } from './envelope-key.js';
import { messageGroupOf, sqsRecords } from './sqs-records.js';

/**
 * The default idempotency key: the `idempotency-key` message attribute, else the key of an
 * EventBridge event or SNS notification the body is (`envelopeKey`: the outbox's id, for a chain
 * through EventBridge or SNS), else the FIFO `MessageDeduplicationId`, else the SQS `messageId`.
 * Only the first two survive a redrive (a moved message gets a new messageId, and a FIFO DLQ
 * replaces the deduplication id), so the other two are marked as fallbacks.
 *
 * @example
 * ```ts
 * sqsDefaultKey(record) // { key: 'order-42-v1' } when the producer set the idempotency-key attribute
 * ```
 */
export function sqsDefaultKey(record: SQSRecord): DefaultKey {
  const attribute = record.messageAttributes?.[IDEMPOTENCY_KEY_ATTRIBUTE]?.stringValue;
  if (attribute !== undefined) return { key: attribute };
  const enveloped = envelopeOf(record.body);
  if (enveloped !== undefined) return { key: enveloped.key };
  const deduplicationId = (record.attributes as Partial<SQSRecord['attributes']> | undefined)?.MessageDeduplicationId;
  return deduplicationId !== undefined
    ? { key: deduplicationId, fallback: 'MessageDeduplicationId' }
    : { key: record.messageId, fallback: 'messageId' };
}

/**
 * What is kept of an SQS record the inbox did not apply: its body as sent, and what sends it back
 * (`replayKept`): its queue, its message attributes (the idempotency key among them), its FIFO
 * group and deduplication id, and its messageId to find it in logs.
 *
 * @example
 * ```ts
 * sqsKept(record).origin // { messageId: '059f...', eventSourceARN: 'arn:aws:sqs:...:orders', messageAttributes: {...} }
 * ```
 */
export function sqsKept(record: SQSRecord): KeptMessage {
  const attributes = record.attributes as Partial<SQSRecord['attributes']> | undefined;
  return {
    source: 'sqs',
    body: record.body,
    encoding: 'utf8',
    origin: {
      messageId: record.messageId,
      eventSourceARN: record.eventSourceARN ?? null,
      messageAttributes: record.messageAttributes ?? {},
      messageGroupId: attributes?.MessageGroupId ?? null,
      messageDeduplicationId: attributes?.MessageDeduplicationId ?? null,
    },
  };
}

/** SQS as a record source: FIFO groups are the ordered lanes, the body (or what its envelope wraps) is the payload and the message. */
export const sqsSource: RecordSource<SQSRecord> = {
  records: sqsRecords,
  messageId: (record) => record.messageId,
  orderedLane: messageGroupOf,
  laneName: 'group',
  defaultKey: sqsDefaultKey,
  rejectKey: (record) => record.messageId,
  // A message in an EventBridge or SNS envelope is hashed by what the envelope wraps (see envelopeOf).
  payload: (record) => envelopeOf(record.body)?.payload ?? record.body,
  // What the default key reads, the default parse unwraps: a subscription without raw delivery gives the message.
  parse: (record) => {
    const envelope = envelopeIn(record.body);
    return envelope !== undefined ? envelope.message() : JSON.parse(record.body) as unknown;
  },
  keep: sqsKept,
  system: 'aws_sqs',
  // The queue's name is the ARN's last part.
  destination: (record) => record.eventSourceARN?.split(':').at(-1) ?? 'unknown',
  traceContext: sqsRecordContext,
};
