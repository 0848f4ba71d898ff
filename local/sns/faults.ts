/** What a fault hook is told about a message being published. */
export interface SnsFaultEntry {
  readonly topicArn: string;
  readonly message: string;
}

/**
 * Faults the local SNS injects on request, each a predicate asked at one point:
 * - `failEntry`: asked for each PublishBatch entry (and each Publish) SNS would take. When true, the
 *   entry is answered in `Failed` with InternalError and SenderFault false (a Publish with HTTP 500),
 *   and nothing is published: the caller should send it again.
 * - `loseResponse`: asked after a request was applied. When true, what it published stays published
 *   but the answer is HTTP 500 InternalError, as if it was lost; on a standard topic the retry then
 *   publishes it twice (a FIFO topic drops the retry as a duplicate).
 *
 * @example
 * ```ts
 * const sns = await startSns({ faults: { loseResponse: ({ operation }) => operation === 'PublishBatch' && Math.random() < 0.1 } });
 * ```
 */
export interface SnsFaults {
  readonly failEntry?: (entry: SnsFaultEntry) => boolean;
  readonly loseResponse?: (call: { readonly operation: string }) => boolean;
}

/** How often each fault fired. */
export interface SnsFaultCounts {
  failedEntries: number;
  lostResponses: number;
}
