import { IDEMPOTENCY_KEY_ATTRIBUTE } from '../contract.js';
import type { KeptMessage } from '../claim/kept-message.js';
import type { DefaultKey, RecordSource } from '../pipeline/record-source.js';
import { kafkaHeader, kafkaPartitionOf, kafkaValue, type KafkaRecord } from './kafka-event.js';
import { kafkaRecords } from './kafka-records.js';
import { headerContext } from '../trace/record-context.js';

/** `<topic>:<partition>:<offset>`: the same on every redelivery of the record. */
function offsetKey(record: KafkaRecord): string {
  return `${record.topic}:${record.partition}:${record.offset}`;
}

/**
 * The default idempotency key of a Kafka record: the `idempotency-key` header, which a producer
 * keeps across its retries, else the record's place in the log, `<topic>:<partition>:<offset>`,
 * which Lambda's redeliveries keep (a producer retry lands at a new offset: give it the header).
 *
 * @example
 * ```ts
 * kafkaDefaultKey(record) // { key: 'orders:2:1041' } for a record without the header
 * ```
 */
export function kafkaDefaultKey(record: KafkaRecord): DefaultKey {
  return { key: kafkaHeader(record, IDEMPOTENCY_KEY_ATTRIBUTE) ?? offsetKey(record) };
}

/**
 * What is kept of a Kafka record the inbox did not apply: its value in base64 as Lambda hands it
 * over (bytes, not text), and where it was in the log with its key and headers.
 *
 * @example
 * ```ts
 * kafkaKept(record).origin // { topic: 'orders', partition: 2, offset: 1041, timestamp: ..., key: 'b3JkZXItNDI=', headers: [...] }
 * ```
 */
export function kafkaKept(record: KafkaRecord): KeptMessage {
  return {
    source: 'kafka',
    body: record.value ?? '',
    encoding: 'base64',
    origin: {
      topic: record.topic,
      partition: record.partition,
      offset: record.offset,
      timestamp: record.timestamp ?? null,
      key: record.key ?? null,
      headers: record.headers ?? [],
    },
  };
}

/** Kafka as a record source: partitions are the ordered lanes, the decoded value is the payload. */
export const kafkaSource: RecordSource<KafkaRecord> = {
  records: kafkaRecords,
  messageId: (record) => `${kafkaPartitionOf(record)}@${record.offset}`,
  orderedLane: kafkaPartitionOf,
  laneName: 'partition',
  defaultKey: kafkaDefaultKey,
  rejectKey: offsetKey,
  payload: (record) => Buffer.from(record.value ?? '', 'base64'),
  parse: (record) => JSON.parse(kafkaValue(record)) as unknown,
  keep: kafkaKept,
  system: 'kafka',
  destination: (record) => record.topic,
  traceContext: (record) => headerContext((name) => kafkaHeader(record, name)),
};
