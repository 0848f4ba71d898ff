/**
 * One record as Lambda's Kafka event sources (Amazon MSK, self-managed Kafka) hand it to a
 * function: key and value in base64 (a record without a key has no `key`), each header as its own
 * `{ name: bytes }` object, each byte a signed Java byte (-128..127).
 */
export interface KafkaRecord {
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
 * `SelfManagedKafka`, records grouped under `'<topic>-<partition>'`, each group in offset order.
 */
export interface KafkaEvent {
  eventSource: 'aws:kafka' | 'SelfManagedKafka';
  eventSourceArn?: string;
  bootstrapServers: string;
  records: Record<string, KafkaRecord[]>;
}

/** Names one record that did not commit: its `'<topic>-<partition>'` and its offset. */
export interface KafkaItemIdentifier {
  partition: string;
  offset: number;
}

/**
 * The Kafka partial batch response, read by an event source mapping in provisioned mode with
 * `ReportBatchItemFailures`: Lambda resumes each named partition from its failed offset.
 */
export interface KafkaBatchResponse {
  batchItemFailures: { itemIdentifier: KafkaItemIdentifier }[];
}

/**
 * The `'<topic>-<partition>'` a record is grouped and reported under.
 *
 * @example
 * ```ts
 * kafkaPartitionOf({ topic: 'orders', partition: 2, ... }) // 'orders-2'
 * ```
 */
export function kafkaPartitionOf(record: Pick<KafkaRecord, 'topic' | 'partition'>): string {
  return `${record.topic}-${record.partition}`;
}

/**
 * A record's value as UTF-8 text, for a `parse` of your own; throws a TypeError when the value is
 * not base64 or its bytes are not UTF-8 (a `parse` that throws rejects the record).
 *
 * @example
 * ```ts
 * parse: (record) => Order.parse(JSON.parse(kafkaValue(record)))
 * ```
 */
export function kafkaValue(record: Pick<KafkaRecord, 'value'>): string {
  return UTF8.decode(kafkaValueBytes(record));
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * A record's value as bytes, after checking it is base64 (Buffer.from would drop what is not and go on).
 *
 * @example
 * ```ts
 * kafkaValueBytes(record) // <Buffer 7b 22 6f ...>
 * ```
 */
export function kafkaValueBytes(record: Pick<KafkaRecord, 'value'>): Buffer {
  const value = record.value ?? '';
  if (!BASE64.test(value)) throw new TypeError('the value is not base64');
  return Buffer.from(value, 'base64');
}

// Lambda sends each header byte as a Java byte, signed (-128..127): `ë` is [-61, -85]. Unsigned
// bytes (0..255), as some tools write them, are read too; each value is taken modulo 256.
const isHeaderByte = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= -128 && (value as number) <= 255;

// Array.from reads a hole as undefined, which is then refused (every() would skip it).
function headerBytes(name: string, value: unknown): Uint8Array {
  const values: unknown[] = Array.isArray(value) ? Array.from(value) : [];
  if (!Array.isArray(value) || !values.every(isHeaderByte)) {
    throw new TypeError(`header ${name} is not a list of bytes (whole numbers from -128 to 255)`);
  }
  return Uint8Array.from(values as number[], (byte) => byte & 0xff);
}

/**
 * The UTF-8 text of a record's header, or undefined when the record has none by that name (the
 * first one, when a producer sent it twice). Header bytes are read as Lambda sends them, signed
 * Java bytes (`ë` as `[-61, -85]`), or unsigned. Throws a TypeError when the header is not a list
 * of such bytes or its bytes are not UTF-8.
 *
 * @example
 * ```ts
 * kafkaHeader(record, 'idempotency-key') // 'order-42-v1'
 * ```
 */
export function kafkaHeader(record: Pick<KafkaRecord, 'headers'>, name: string): string | undefined {
  for (const header of record.headers ?? []) {
    const value = header?.[name];
    if (value !== undefined) {
      const bytes = headerBytes(name, value);
      // Lossy decoding would map different keys to one text and drop the later message as a duplicate.
      try {
        return UTF8.decode(bytes);
      } catch {
        throw new TypeError(`header ${name} is not UTF-8 text`);
      }
    }
  }
  return undefined;
}
