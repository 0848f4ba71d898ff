/** What a fault hook is told about an entry of PutEvents. */
export interface EventBridgeFaultEntry {
  readonly eventBusName: string;
  readonly source: string;
  readonly detailType: string;
  readonly detail: string;
}

/**
 * Faults the local EventBridge injects on request, each a predicate asked at one point:
 * - `failEntry`: asked for each entry PutEvents would take. When true, the entry is answered with
 *   `ErrorCode: InternalFailure` (a retryable code) and counted in `FailedEntryCount`, and the event
 *   is not put on the bus.
 * - `loseResponse`: asked after a PutEvents was applied. When true, its events are on the bus but
 *   the answer is HTTP 500 InternalException, as if it was lost: the SDK (or the caller) sends again,
 *   and the bus then holds the events twice, as EventBridge (which has no deduplication) would.
 *
 * @example
 * ```ts
 * const events = await startEventBridge({ faults: { failEntry: ({ detail }) => detail.includes('"flaky"') } });
 * ```
 */
export interface EventBridgeFaults {
  readonly failEntry?: (entry: EventBridgeFaultEntry) => boolean;
  readonly loseResponse?: (call: { readonly operation: string }) => boolean;
}

/** How often each fault fired. */
export interface EventBridgeFaultCounts {
  failedEntries: number;
  lostResponses: number;
}
