import type { LogRecord } from './kafka-log.js';

/**
 * One record as Lambda hands it to a function: key and value in base64 (no `key` at all for a
 * record without one), each header as its own `{ name: bytes }` object. The same shape for Amazon
 * MSK and self-managed Kafka (https://docs.aws.amazon.com/lambda/latest/dg/with-msk.html).
 */
export interface KafkaEventRecord {
  topic: string;
  partition: number;
  offset: number;
  timestamp: number;
  timestampType: 'CREATE_TIME' | 'LOG_APPEND_TIME';
  key?: string;
  value: string;
  headers: Record<string, number[]>[];
}

/**
 * The event of Lambda's Kafka event sources: `aws:kafka` (Amazon MSK, with the cluster's ARN) or
 * `SelfManagedKafka` (no ARN), records grouped under `'<topic>-<partition>'`, each group in offset order.
 */
export interface KafkaEvent {
  eventSource: 'aws:kafka' | 'SelfManagedKafka';
  eventSourceArn?: string;
  bootstrapServers: string;
  records: Record<string, KafkaEventRecord[]>;
}

/** Names one record that failed, by its group key and offset. */
export interface KafkaItemIdentifier {
  partition: string;
  offset: number;
}

/**
 * A Kafka partial batch response, read when the event source mapping has ReportBatchItemFailures
 * (https://docs.aws.amazon.com/lambda/latest/dg/kafka-retry-configurations.html).
 */
export interface KafkaBatchResponse {
  batchItemFailures: { itemIdentifier: KafkaItemIdentifier }[];
}

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
 * A stored record as Lambda's Kafka poller puts it in an event: base64 key and value, headers as
 * byte arrays, CREATE_TIME timestamps.
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
    headers: record.headers.map(([name, value]) => ({ [name]: [...value] })),
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
