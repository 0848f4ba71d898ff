/** What one batch call takes. */
export interface BatchLimits {
  /** Entries a call. */
  readonly maxEntries: number;
  /** Bytes of a call, the sizes of its entries summed. */
  readonly maxBytes: number;
  /** FIFO: a call holds at most one entry of each group. */
  readonly ordered: boolean;
}

/**
 * Consecutive items in batches within `limits`, in the order given (FIFO order depends on it). An
 * ordered (FIFO) batch holds one item of each group at most: an entry the service fails is retried
 * before the next batch, so it can never land behind a later item of its own group.
 *
 * @example
 * ```ts
 * batches(prepared, { maxEntries: 10, maxBytes: 1_048_576, ordered: true }, (p) => p.size, (p) => p.entry.MessageGroupId).length // one call per batch
 * ```
 */
export function batches<T>(items: readonly T[], limits: BatchLimits, sizeOf: (item: T) => number, groupOf: (item: T) => string | undefined): T[][] {
  const result: T[][] = [];
  let current: T[] = [];
  let groups = new Set<string | undefined>();
  let bytes = 0;
  for (const item of items) {
    const size = sizeOf(item);
    const groupTaken = limits.ordered && groups.has(groupOf(item));
    if (current.length > 0 && (current.length === limits.maxEntries || bytes + size > limits.maxBytes || groupTaken)) {
      result.push(current);
      current = [];
      groups = new Set();
      bytes = 0;
    }
    current.push(item);
    groups.add(groupOf(item));
    bytes += size;
  }
  if (current.length > 0) result.push(current);
  return result;
}
