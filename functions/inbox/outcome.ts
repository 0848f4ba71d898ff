/** What became of one SQS record. */
export const OutcomeKind = {
  processed: 'processed',
  duplicate: 'duplicate',
  collision: 'collision',
  rejected: 'rejected',
  failed: 'failed',
  skipped: 'skipped',
} as const;

/** One of `processed | duplicate | collision | rejected | failed | skipped`. */
export type OutcomeKind = (typeof OutcomeKind)[keyof typeof OutcomeKind];

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
  messageId: string;
  key?: string;
  groupId?: string;
  error?: unknown;
  durationMs: number;
}

/**
 * Whether SQS must deliver the record again.
 *
 * @example
 * ```ts
 * isRedelivered('failed') // true
 * ```
 */
export function isRedelivered(kind: OutcomeKind): boolean {
  return kind === OutcomeKind.failed || kind === OutcomeKind.skipped;
}
