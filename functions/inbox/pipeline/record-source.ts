import type { KeptMessage } from '../claim/kept-message.js';
import type { KeyFallback } from '../outcome.js';
import type { TraceParent } from '../trace/trace-parent.js';

/** A record's default idempotency key, and whether it is a fallback that a redrive changes. */
export interface DefaultKey {
  readonly key: string;
  readonly fallback?: KeyFallback;
}

/**
 * What the pipeline needs to know of one event source (SQS, Kafka): how to read and check its
 * event, and the few facts of a record the per-message rules use. One pipeline runs every source;
 * each source is one of these plus the shape of its response.
 */
export interface RecordSource<R> {
  /** The records of an event, in order, after checking it is this source's; throws `InvalidEventError`. */
  records(event: unknown): R[];
  /** A record's identity in outcomes and logs (the SQS messageId; `<topic>-<partition>@<offset>`). */
  messageId(record: R): string;
  /** The ordered lane of a record (a FIFO message group, a Kafka partition), or undefined when unordered. */
  orderedLane(record: R): string | undefined;
  /** What an ordered lane is called in a skipped record's error. */
  readonly laneName: 'group' | 'partition';
  /** The key used when the options give no `key` function. */
  defaultKey(record: R): DefaultKey;
  /** The key a message with no usable key is rejected under. */
  rejectKey(record: R): string;
  /** The bytes the payload hash is taken of: the body, the value. */
  payload(record: R): string | Uint8Array;
  /** The message when the options give no `parse`; a throw rejects the record. */
  parse(record: R): unknown;
  /** What is kept of a record that is rejected or collides: its body and what a replay needs. */
  keep(record: R): KeptMessage;
  /** The OpenTelemetry `messaging.system` of the source. */
  readonly system: 'aws_sqs' | 'kafka';
  /** Where a record was read from, the span's `messaging.destination.name`: the queue's name, the topic. */
  destination(record: R): string;
  /** The producer's trace context a record carries, if any. */
  traceContext(record: R): TraceParent | undefined;
}
