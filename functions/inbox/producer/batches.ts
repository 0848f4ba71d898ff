import type { Prepared } from './outgoing-entry.js';

const MAX_ENTRIES = 10;

/**
 * Consecutive messages, at most 10 and `maxBytes` a batch, in the order given (FIFO order depends on
 * it). On FIFO a batch holds one message of each group at most: an entry SQS fails is retried before
 * the next batch, so it can never land behind a later message of its own group.
 *
 * @example
 * ```ts
 * batches(prepared, 262_144, true).length // one call per batch
 * ```
 */
export function batches(prepared: readonly Prepared[], maxBytes: number, fifo: boolean): Prepared[][] {
  const result: Prepared[][] = [];
  let current: Prepared[] = [];
  let groups = new Set<string | undefined>();
  let bytes = 0;
  for (const item of prepared) {
    const groupTaken = fifo && groups.has(item.entry.MessageGroupId);
    if (current.length === MAX_ENTRIES || bytes + item.size > maxBytes || groupTaken) {
      result.push(current);
      current = [];
      groups = new Set();
      bytes = 0;
    }
    current.push(item);
    groups.add(item.entry.MessageGroupId);
    bytes += item.size;
  }
  if (current.length > 0) result.push(current);
  return result;
}
