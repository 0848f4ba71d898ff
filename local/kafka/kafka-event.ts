import type { KafkaEvent, KafkaRecord as KafkaEventRecord } from '../../functions/inbox/kafka/index.js';
import type { LogRecord } from './kafka-log.js';

// The event's shapes are the kit's own (functions/inbox/kafka), so the stand-in and the runtime agree.
export type { KafkaBatchResponse, KafkaEvent, KafkaItemIdentifier, KafkaRecord as KafkaEventRecord } from '../../functions/inbox/kafka/index.js';

/** Which Kafka event source the events come from. */
export interface KafkaEventOrigin {
  readonly eventSource: KafkaEvent['eventSource'];
  /** The MSK cluster's ARN; only `aws:kafka` events carry it. */
  readonly clusterArn: string;
  readonly bootstrapServers: string;
}

/**
 * The key Lambda groups a partition's records under, and a failure names its partition by.
 *
 * @example
 * ```ts
 * partitionKey('orders', 2) // 'orders-2'
 * ```
 */
export const partitionKey = (topic: string, partition: number): string => `${topic}-${partition}`;

/**
 * Bytes as Lambda's Kafka event carries a header value: Java bytes, which are signed, so each byte
 * over 127 is a negative number (`ë`, UTF-8 `c3 ab`, is `[-61, -85]`).
 *
 * @example
 * ```ts
 * javaBytes(Buffer.from('Zürich-1')) // [90, -61, -68, 114, 105, 99, 104, 45, 49]
 * ```
 */
export function javaBytes(bytes: Uint8Array): number[] {
  return [...new Int8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)];
}

/**
 * A stored record as Lambda's Kafka poller puts it in an event: base64 key and value, headers as
 * lists of signed Java bytes, CREATE_TIME timestamps.
 *
 * @example
 * ```ts
 * toKafkaEventRecord(record).value // 'eyJvcmRlcklkIjoiMSJ9'
 * ```
 */
export function toKafkaEventRecord(record: LogRecord): KafkaEventRecord {
  const event: KafkaEventRecord = {
    topic: record.topic,
    partition: record.partition,
    offset: record.offset,
    timestamp: record.timestamp,
    timestampType: 'CREATE_TIME',
    value: record.value.toString('base64'),
    headers: record.headers.map(([name, value]) => ({ [name]: javaBytes(value) })),
  };
  if (record.key !== undefined) event.key = record.key.toString('base64');
  return event;
}

/**
 * The event for a batch of stored records: grouped under `'<topic>-<partition>'` in the order
 * given, with the origin's `eventSource`, and the cluster ARN on `aws:kafka` events only.
 *
 * @example
 * ```ts
 * const event = toKafkaEvent(records, { eventSource: 'aws:kafka', clusterArn: log.clusterArn, bootstrapServers: log.bootstrapServers });
 * event.records['orders-0']?.[0]?.offset // 0
 * ```
 */
export function toKafkaEvent(records: readonly LogRecord[], origin: KafkaEventOrigin): KafkaEvent {
  const grouped: Record<string, KafkaEventRecord[]> = {};
  for (const record of records) (grouped[partitionKey(record.topic, record.partition)] ??= []).push(toKafkaEventRecord(record));
  return origin.eventSource === 'aws:kafka'
    ? { eventSource: 'aws:kafka', eventSourceArn: origin.clusterArn, bootstrapServers: origin.bootstrapServers, records: grouped }
    : { eventSource: 'SelfManagedKafka', bootstrapServers: origin.bootstrapServers, records: grouped };
}
