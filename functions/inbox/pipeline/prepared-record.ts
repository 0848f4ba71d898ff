import type { KeptMessage } from '../claim/kept-message.js';
import type { KeyResult } from './message-key.js';
import type { OutcomeKind } from '../outcome.js';

/** A record with what the kit worked out before touching the database. */
export interface PreparedRecord<R> {
  readonly record: R;
  readonly messageId: string;
  /** The FIFO message group or Kafka partition, when the record is ordered. */
  readonly lane: string | undefined;
  readonly key: KeyResult;
  readonly hash: string;
  /** The key a record with no usable key is rejected under. */
  readonly rejectKey: string;
  /** What is kept of it when it is rejected or collides. */
  readonly keep: () => KeptMessage;
}

/** What became of a record, before its duration is added. */
export interface RecordResult {
  readonly kind: OutcomeKind;
  readonly error?: unknown;
}
