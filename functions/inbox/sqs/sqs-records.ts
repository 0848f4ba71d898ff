import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { InvalidEventError } from '../pipeline/errors.js';

/**
 * The records of an SQS batch, after checking that the event is one. A record without a
 * `messageId` or a string `body` refuses the whole event before anything is processed, so nothing
 * is half done and Lambda retries the invocation.
 *
 * @example
 * ```ts
 * const records = sqsRecords(event); // throws InvalidEventError for an API Gateway event
 * ```
 */
export function sqsRecords(event: unknown): SQSRecord[] {
  const refuse = (detail: string) => new InvalidEventError('SQS', detail);
  if (typeof event !== 'object' || event === null) throw refuse(`got ${event === null ? 'null' : typeof event}`);
  const records = (event as Partial<SQSEvent>).Records;
  if (!Array.isArray(records)) {
    throw refuse((event as { eventSource?: unknown }).eventSource !== undefined
      ? `it comes from ${String((event as { eventSource?: unknown }).eventSource)} and has no Records array`
      : 'it has no Records array');
  }
  // An index loop, not forEach: forEach skips the holes of a sparse array, which would reach the pipeline.
  for (let index = 0; index < records.length; index += 1) {
    const record: unknown = records[index];
    if (typeof record !== 'object' || record === null) throw refuse(`record ${index} is not an object`);
    const { messageId, body, eventSource } = record as Partial<SQSRecord>;
    if (eventSource !== undefined && eventSource !== 'aws:sqs') throw refuse(`record ${index} comes from ${String(eventSource)}`);
    if (typeof messageId !== 'string' || messageId === '') throw refuse(`record ${index} has no messageId`);
    if (typeof body !== 'string') throw refuse(`record ${index} (${messageId}) has no body`);
  }
  return records as SQSRecord[];
}

/**
 * The FIFO message group of a record, or undefined on a standard queue.
 *
 * @example
 * ```ts
 * messageGroupOf(record) // 'customer-42'
 * ```
 */
export function messageGroupOf(record: SQSRecord): string | undefined {
  const group = (record.attributes as Partial<SQSRecord['attributes']> | undefined)?.MessageGroupId;
  return typeof group === 'string' && group !== '' ? group : undefined;
}
