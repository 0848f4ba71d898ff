import { InvalidEventError } from '../pipeline/errors.js';
import { kafkaPartitionOf, type KafkaEvent, type KafkaRecord } from './kafka-event.js';

const SOURCES: ReadonlySet<unknown> = new Set(['aws:kafka', 'SelfManagedKafka']);
const isWhole = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

function checkRecord(record: unknown, group: string, index: number): KafkaRecord {
  const refuse = (detail: string) => new InvalidEventError('Kafka', `record ${index} of ${group} ${detail}`);
  if (typeof record !== 'object' || record === null) throw refuse('is not an object');
  const { topic, partition, offset, value } = record as Partial<KafkaRecord>;
  if (typeof topic !== 'string' || topic === '') throw refuse('has no topic');
  if (!isWhole(partition)) throw refuse('has no partition number');
  if (!isWhole(offset)) throw refuse('has no offset');
  if (value !== undefined && value !== null && typeof value !== 'string') throw refuse('has a value that is not base64 text');
  // The response names a record by its group: a record filed under another partition could not be named.
  if (kafkaPartitionOf({ topic, partition }) !== group) throw refuse(`belongs to ${kafkaPartitionOf({ topic, partition })}`);
  return record as KafkaRecord;
}

/**
 * The records of a Kafka batch in the event's order, after checking the event is one: an SQS
 * event, a record without topic, partition or offset, or one filed under another partition
 * refuses the whole event before anything is processed, so Lambda retries the invocation.
 *
 * @example
 * ```ts
 * const records = kafkaRecords(event); // throws InvalidEventError for an SQS event
 * ```
 */
export function kafkaRecords(event: unknown): KafkaRecord[] {
  const refuse = (detail: string) => new InvalidEventError('Kafka', detail);
  if (typeof event !== 'object' || event === null) throw refuse(`got ${event === null ? 'null' : typeof event}`);
  const { eventSource, records } = event as Partial<KafkaEvent> & { Records?: unknown };
  if (Array.isArray((event as { Records?: unknown }).Records)) throw refuse('it is an SQS batch (a Records array): use processBatch or inbox()');
  if (eventSource !== undefined && !SOURCES.has(eventSource)) throw refuse(`it comes from ${String(eventSource)}`);
  if (typeof records !== 'object' || records === null || Array.isArray(records)) throw refuse('it has no records map');
  const checked: KafkaRecord[] = [];
  for (const [group, list] of Object.entries(records)) {
    if (!Array.isArray(list)) throw refuse(`records of ${group} are not a list`);
    // An index loop, not map: map skips the holes of a sparse array, which would drop them unseen.
    for (let index = 0; index < list.length; index += 1) checked.push(checkRecord(list[index], group, index));
  }
  return checked;
}
