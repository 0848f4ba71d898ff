import { javaBytes, type KafkaBatchResponse, type KafkaEvent, type KafkaEventRecord, type KafkaItemIdentifier } from '../../local/kafka/index.js';

export interface KafkaRecordOptions {
  topic?: string;
  partition?: number;
  /** Defaults to the next offset of the record's topic-partition in this file. */
  offset?: number;
  /** The record's key, stored in base64; none by default, and then the record has no `key`, as Lambda sends it. */
  key?: string;
  /** Header values as text; each header becomes its own `{ name: bytes }` object, in signed Java bytes as Lambda sends them. */
  headers?: Record<string, string>;
  timestamp?: number;
}

const nextOffsets = new Map<string, number>();
const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** A Kafka record as Lambda delivers it; a non-string value is JSON-encoded, then base64. */
export function kafkaRecord(value: unknown, options: KafkaRecordOptions = {}): KafkaEventRecord {
  const topic = options.topic ?? 'orders';
  const partition = options.partition ?? 0;
  const group = `${topic}-${partition}`;
  const offset = options.offset ?? nextOffsets.get(group) ?? 0;
  nextOffsets.set(group, Math.max(nextOffsets.get(group) ?? 0, offset + 1));
  const record: KafkaEventRecord = {
    topic,
    partition,
    offset,
    timestamp: options.timestamp ?? Date.now(),
    timestampType: 'CREATE_TIME',
    value: base64(typeof value === 'string' ? value : JSON.stringify(value)),
    headers: Object.entries(options.headers ?? {}).map(([name, text]) => ({ [name]: javaBytes(Buffer.from(text, 'utf8')) })),
  };
  if (options.key !== undefined) record.key = base64(options.key);
  return record;
}

export interface KafkaEventOptions {
  /** @default 'aws:kafka' */
  eventSource?: KafkaEvent['eventSource'];
}

/** A batch of records, grouped under '<topic>-<partition>' in the order given; MSK events carry a cluster ARN. */
export function kafkaEvent(records: KafkaEventRecord[], options: KafkaEventOptions = {}): KafkaEvent {
  const grouped: Record<string, KafkaEventRecord[]> = {};
  for (const record of records) (grouped[`${record.topic}-${record.partition}`] ??= []).push(record);
  const bootstrapServers = 'b-1.orders.abc123.c2.kafka.us-east-1.amazonaws.com:9098';
  return options.eventSource === 'SelfManagedKafka'
    ? { eventSource: 'SelfManagedKafka', bootstrapServers, records: grouped }
    : { eventSource: 'aws:kafka', eventSourceArn: 'arn:aws:kafka:us-east-1:123456789012:cluster/orders/abc123-1', bootstrapServers, records: grouped };
}

/** The identifier that names a record in a partial batch response. */
export function itemIdentifier(record: KafkaEventRecord): KafkaItemIdentifier {
  return { partition: `${record.topic}-${record.partition}`, offset: record.offset };
}

/** A partial batch response naming these records. */
export function kafkaFailures(...records: KafkaEventRecord[]): KafkaBatchResponse {
  return { batchItemFailures: records.map((record) => ({ itemIdentifier: itemIdentifier(record) })) };
}

/** The records of an event in order, partition by partition. */
export function eventRecords(event: KafkaEvent): KafkaEventRecord[] {
  return Object.values(event.records).flat();
}

/** A record's value decoded from base64 as text. */
export function recordValue(record: KafkaEventRecord): string {
  return Buffer.from(record.value, 'base64').toString('utf8');
}
