import { randomUUID } from 'node:crypto';
import { withDefaults } from '../../functions/inbox/internal.js';
import { LocalConfigError } from '../errors.js';
import { settingChecks } from '../setting-checks.js';
import { KafkaLogError, ProduceAckLostError, RecordTooLargeError, UnknownTopicOrPartitionError } from './kafka-errors.js';
import { partitionForKey } from './partitioner.js';

/** A record to produce. Strings are stored as their UTF-8 bytes. */
export interface ProduceMessage {
  readonly value: string | Uint8Array;
  /**
   * The record's key; records of one key go to one partition (Kafka's murmur2 partitioner).
   * @default none: the record goes to the topic's partitions in turn
   */
  readonly key?: string | Uint8Array;
  /**
   * Headers, each a name and a value.
   * @default none
   */
  readonly headers?: Readonly<Record<string, string | Uint8Array>>;
  /**
   * The partition to write to, overriding the key.
   * @default chosen from the key
   */
  readonly partition?: number;
  /**
   * The record's CreateTime, in epoch milliseconds, as a producer sets it.
   * @default the log's clock at the append
   */
  readonly timestamp?: number;
}

/** Where a produced record was stored. */
export interface ProducedRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly timestamp: number;
}

/** A record as the log holds it. */
export interface LogRecord extends ProducedRecord {
  readonly key: Buffer | undefined;
  readonly value: Buffer;
  readonly headers: readonly (readonly [name: string, value: Buffer])[];
}

/**
 * Faults the local Kafka log injects on request; a hook left out never fires.
 * - `loseProduceAck`: asked after a record is appended. When true, `produce` rejects with
 *   `ProduceAckLostError` although the record is stored, as a request timeout looks to a producer:
 *   one that retries without idempotence stores the record twice, at two offsets.
 *
 * @example
 * ```ts
 * const log = new KafkaLog({ faults: { loseProduceAck: () => Math.random() < 0.05 } });
 * ```
 */
export interface KafkaLogFaults {
  readonly loseProduceAck?: (record: ProducedRecord) => boolean;
}

/** Options of `createTopic`. */
export interface CreateTopicOptions {
  /**
   * Partitions of the topic, 1 to 1000.
   * @default 1
   */
  readonly partitions?: number;
  /**
   * How long a record is kept after its append (retention.ms); -1 keeps records for ever.
   * @default 604800000 (7 days, Kafka's and MSK's default)
   */
  readonly retentionMs?: number;
}

/** Options of a `KafkaLog`. */
export interface KafkaLogOptions {
  /**
   * Region and account of the MSK cluster ARN the events name.
   * @default 'us-east-1' and '000000000000'
   */
  readonly region?: string;
  readonly accountId?: string;
  /**
   * The cluster's name in its ARN.
   * @default 'local'
   */
  readonly clusterName?: string;
  /**
   * The `bootstrapServers` string the events carry. Nothing listens there: Lambda, not the function, speaks Kafka.
   * @default '127.0.0.1:9092'
   */
  readonly bootstrapServers?: string;
  /**
   * The clock of timestamps and retention, in epoch milliseconds, for a test that moves time on.
   * @default Date.now
   */
  readonly clock?: () => number;
  /**
   * Faults to inject; see `KafkaLogFaults`.
   * @default none
   */
  readonly faults?: KafkaLogFaults;
}

/** Counts since the log was made. */
export interface KafkaLogStats {
  produced: number;
  lostAcks: number;
  /** Records removed by retention. */
  expired: number;
}

interface Entry {
  readonly record: LogRecord;
  readonly appendedAt: number;
}

interface PartitionLog {
  startOffset: number;
  entries: Entry[];
}

interface Topic {
  readonly partitions: PartitionLog[];
  readonly retentionMs: number;
  nextKeyless: number;
}

const DEFAULTS = { region: 'us-east-1', accountId: '000000000000', clusterName: 'local', bootstrapServers: '127.0.0.1:9092', clock: Date.now, faults: {} } as const;
const TOPIC_DEFAULTS = { partitions: 1, retentionMs: 7 * 24 * 3600 * 1000 } as const;
// Kafka's legal topic names (Topic.validate): letters, digits, '.', '_' and '-', at most 249.
const TOPIC_NAME = /^[A-Za-z0-9._-]{1,249}$/;
// The broker's default message.max.bytes.
const MAX_RECORD_BYTES = 1_048_588;

const bytes = (value: string | Uint8Array): Buffer => (typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.from(value));

const describeValue = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value);

function requireBytes(name: string, value: unknown, hint = ''): void {
  if (typeof value !== 'string' && !(value instanceof Uint8Array)) {
    throw new KafkaLogError(`${name} must be a string or bytes (Uint8Array), but ${describeValue(value)} was given${hint}.`);
  }
}

const HEADERS_SHAPE = "headers are one { name: value } record, each value a string or bytes, for example { 'idempotency-key': 'ship-order-1', source: 'web' }";

/** A record's headers as name and value pairs, after checking they are one `{ name: value }` record. */
function headerEntries(headers: unknown): [string, string | Uint8Array][] {
  if (headers === undefined) return [];
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers) || headers instanceof Uint8Array) {
    throw new KafkaLogError(`${HEADERS_SHAPE}, but ${describeValue(headers)} was given${Array.isArray(headers) ? " (Lambda's event lists headers; a producer does not)" : ''}.`);
  }
  const entries = Object.entries(headers as Record<string, unknown>);
  for (const [name, value] of entries) requireBytes(`header ${name}`, value, `: ${HEADERS_SHAPE}`);
  return entries as [string, string | Uint8Array][];
}

/**
 * A Kafka cluster's data on one machine, without a broker: topics of numbered partitions, each an
 * append-only list of records with offsets from 0 and timestamps, the committed offset of each
 * consumer group per partition, and retention by age. A keyed record goes to the partition Kafka's
 * default partitioner picks (murmur2 of the key), a keyless one to the partitions in turn. It is
 * what Lambda's Kafka poller reads; `startKafkaEventSource` is that poller.
 *
 * @example
 * ```ts
 * const log = new KafkaLog();
 * log.createTopic('orders', { partitions: 3 });
 * const { partition, offset } = await log.produce('orders', { key: 'order-1', value: JSON.stringify({ orderId: 'order-1' }) });
 * log.read('orders', partition, offset, 10); // [the record]
 * ```
 */
export class KafkaLog {
  public readonly region: string;
  public readonly accountId: string;
  /** The MSK cluster ARN that `aws:kafka` events name. */
  public readonly clusterArn: string;
  public readonly bootstrapServers: string;
  public readonly stats: KafkaLogStats = { produced: 0, lostAcks: 0, expired: 0 };
  private readonly clock: () => number;
  private readonly faults: KafkaLogFaults;
  private readonly topics = new Map<string, Topic>();
  private readonly groups = new Map<string, Map<string, number>>();
  private readonly waiters = new Map<string, Set<() => void>>();

  public constructor(options: KafkaLogOptions = {}) {
    const settings = withDefaults(DEFAULTS, options);
    this.region = settings.region;
    this.accountId = settings.accountId;
    this.clusterArn = `arn:aws:kafka:${settings.region}:${settings.accountId}:cluster/${settings.clusterName}/${randomUUID()}-1`;
    this.bootstrapServers = settings.bootstrapServers;
    this.clock = settings.clock;
    this.faults = settings.faults;
  }

  /** Creates a topic; a topic that exists already is refused. */
  public createTopic(name: string, options: CreateTopicOptions = {}): void {
    const settings = withDefaults(TOPIC_DEFAULTS, options);
    const { partitions, retentionMs } = settings;
    if (!TOPIC_NAME.test(name)) throw new LocalConfigError(`A topic name is 1 to 249 letters, digits, '.', '_' or '-', but "${name}" was given.`);
    if (this.topics.has(name)) throw new KafkaLogError(`Topic "${name}" exists already.`);
    settingChecks(settings).whole('partitions', 1, 1000);
    if (!Number.isInteger(retentionMs) || (retentionMs < 1 && retentionMs !== -1)) throw new LocalConfigError(`retentionMs must be a positive whole number or -1, but ${String(retentionMs)} was given.`);
    this.topics.set(name, { partitions: Array.from({ length: partitions }, () => ({ startOffset: 0, entries: [] })), retentionMs, nextKeyless: 0 });
  }

  /** How many partitions the topic has. */
  public partitions(topic: string): number {
    return this.topic(topic).partitions.length;
  }

  /**
   * Appends a record and answers where it went. Rejects an unknown topic or partition, a record
   * over the broker's size limit, and (when the fault fires) loses the acknowledgement of a stored record.
   */
  public async produce(topic: string, message: ProduceMessage): Promise<ProducedRecord> {
    const target = this.topic(topic);
    requireBytes('value', message?.value);
    if (message.key !== undefined) requireBytes('key', message.key);
    const key = message.key === undefined ? undefined : bytes(message.key);
    const headers = headerEntries(message.headers).map(([name, value]) => [name, bytes(value)] as const);
    const value = bytes(message.value);
    const size = value.length + (key?.length ?? 0) + headers.reduce((sum, [name, data]) => sum + Buffer.byteLength(name) + data.length, 0);
    if (size > MAX_RECORD_BYTES) throw new RecordTooLargeError(size, MAX_RECORD_BYTES);

    let partition: number;
    if (message.partition !== undefined) partition = message.partition;
    else if (key !== undefined) partition = partitionForKey(key, target.partitions.length);
    else partition = target.nextKeyless++ % target.partitions.length;
    const log = this.partition(topic, partition);
    const now = this.clock();
    if (message.timestamp !== undefined && !Number.isInteger(message.timestamp)) throw new KafkaLogError(`timestamp must be whole epoch milliseconds, but ${String(message.timestamp)} was given.`);
    this.expire(target, log);
    const record: LogRecord = Object.freeze({
      topic, partition, offset: log.startOffset + log.entries.length, timestamp: message.timestamp ?? now, key, value, headers: Object.freeze(headers),
    });
    log.entries.push({ record, appendedAt: now });
    this.stats.produced += 1;
    for (const wake of this.waiters.get(topic) ?? []) wake();
    const produced = { topic, partition, offset: record.offset, timestamp: record.timestamp };
    if (this.faults.loseProduceAck?.(produced)) {
      this.stats.lostAcks += 1;
      throw new ProduceAckLostError(topic, partition);
    }
    return produced;
  }

  /** Up to `maxRecords` records of a partition from `fromOffset` on (from its first kept record if that one expired). */
  public read(topic: string, partition: number, fromOffset: number, maxRecords: number): LogRecord[] {
    const log = this.partition(topic, partition);
    this.expire(this.topic(topic), log);
    const from = Math.max(fromOffset, log.startOffset) - log.startOffset;
    return log.entries.slice(from, from + Math.max(0, maxRecords)).map((entry) => entry.record);
  }

  /** The partition's first kept offset and its end: the offset the next record gets. */
  public offsets(topic: string, partition: number): { readonly start: number; readonly end: number } {
    const log = this.partition(topic, partition);
    this.expire(this.topic(topic), log);
    return { start: log.startOffset, end: log.startOffset + log.entries.length };
  }

  /** The consumer group's committed offset of a partition: the next offset it will read; undefined before its first commit. */
  public committed(group: string, topic: string, partition: number): number | undefined {
    this.partition(topic, partition);
    return this.groups.get(group)?.get(`${topic}-${partition}`);
  }

  /** Commits the group's offset of a partition: the offset of the next record to read. */
  public commit(group: string, topic: string, partition: number, offset: number): void {
    this.partition(topic, partition);
    if (!Number.isInteger(offset) || offset < 0) throw new KafkaLogError(`A committed offset is a whole number from 0, but ${String(offset)} was given.`);
    let offsets = this.groups.get(group);
    if (offsets === undefined) this.groups.set(group, (offsets = new Map()));
    offsets.set(`${topic}-${partition}`, offset);
  }

  /** Resolves at the next append to the topic, after `timeoutMs`, or when `signal` aborts, whichever comes first. */
  public waitForRecords(topic: string, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    this.topic(topic);
    return new Promise((resolve) => {
      const waiting = this.waiters.get(topic) ?? new Set<() => void>();
      this.waiters.set(topic, waiting);
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        waiting.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, timeoutMs));
      waiting.add(done);
      if (signal?.aborted) done();
      else signal?.addEventListener('abort', done);
    });
  }

  private topic(name: string): Topic {
    const topic = this.topics.get(name);
    if (topic === undefined) throw new UnknownTopicOrPartitionError(name);
    return topic;
  }

  private partition(topic: string, partition: number): PartitionLog {
    const log = Number.isInteger(partition) ? this.topic(topic).partitions[partition] : undefined;
    if (log === undefined) throw new UnknownTopicOrPartitionError(topic, partition);
    return log;
  }

  // Records leave in append order, so retention only ever cuts the head of a partition.
  private expire(topic: Topic, log: PartitionLog): void {
    if (topic.retentionMs === -1) return;
    const cutoff = this.clock() - topic.retentionMs;
    let kept = log.entries.findIndex((entry) => entry.appendedAt > cutoff);
    if (kept === -1) kept = log.entries.length;
    if (kept === 0) return;
    log.entries.splice(0, kept);
    log.startOffset += kept;
    this.stats.expired += kept;
  }
}
