import { OutcomeKind } from './contract.js';

export { OutcomeKind } from './contract.js';

/** Where a default key came from when it is not the producer's own idempotency key. */
export type KeyFallback = 'MessageDeduplicationId' | 'messageId';

/**
 * The account of one record, given to `onOutcome`, logged and counted. `failed` and `skipped`
 * records are reported in `batchItemFailures`; the others are acknowledged.
 *
 * @example
 * ```ts
 * onOutcome: (o: Outcome) => { if (o.kind === 'collision') alert(o.key); }
 * ```
 */
export interface Outcome {
  kind: OutcomeKind;
  /** The SQS messageId, or `<topic>-<partition>@<offset>` for a Kafka record. */
  messageId: string;
  key?: string;
  /**
   * Set when the key is a fallback that a redrive changes (`MessageDeduplicationId` or
   * `messageId`), not the producer's `idempotency-key` attribute: a redriven copy of this message
   * would not be seen as a duplicate.
   */
  keyFallback?: KeyFallback;
  /** The ordered lane the record ran in: its FIFO message group, or its Kafka `<topic>-<partition>`; absent when unordered. */
  lane?: string;
  error?: unknown;
  durationMs: number;
}

/**
 * Whether the event source must deliver the record again (it is named in the batch response).
 *
 * @example
 * ```ts
 * isRedelivered('failed') // true
 * ```
 */
export function isRedelivered(kind: OutcomeKind): boolean {
  return kind === OutcomeKind.failed || kind === OutcomeKind.skipped;
}
