import type { Database } from '../database/database.js';
import { retry, type RetryPolicy } from '../retry.js';
import { markStatement, type HeldGroup, type Marks } from './outbox-table.js';
import type { ResolvedPublisher } from './publisher.js';
import { sendRows, type QueuedRow } from './send-rows.js';

/** The longest a lease or a timer runs: Lambda's longest invocation. */
export const MAX_LEASE_MS = 900_000;
/** The pacing of the retries of an entry: the producer's. */
const SEND_BACKOFF = { baseMs: 50, maxMs: 2000 } as const;

/** Who sends, and how long they may take. */
export interface DispatchSettings {
  readonly db: Database;
  readonly publishers: ReadonlyMap<string, ResolvedPublisher>;
  /** The lease the rows are held under: only rows still leased to it are marked. */
  readonly holder: string;
  /** Calls that carry an entry, the first included. */
  readonly attempts: number;
  readonly remainingMs: () => number;
  /** No call is started with less than this left; calls in flight are aborted at half of it. */
  readonly marginMs: number;
  /** The in-place retries of the mark's transient database errors. */
  readonly policy: RetryPolicy;
}

/** What a dispatch did, as its mark counted it. */
export interface DispatchCounts {
  readonly sent: number;
  readonly failed: number;
  readonly left: number;
}

/**
 * The FIFO groups of the rows sent, each let go unless one of its rows was left; with `held`, the
 * groups held without a row to send as well (let go).
 *
 * @example
 * ```ts
 * heldGroups(rows, results.left) // [{ consumer: 'ship-orders', target: 'shipped', groupId: 'c-1', release: true }]
 * ```
 */
export function heldGroups(rows: readonly QueuedRow[], left: readonly { readonly id: string }[], held: readonly HeldGroup[] = []): Marks['groups'] {
  const leftIds = new Set(left.map(({ id }) => id));
  const groups = new Map<string, Marks['groups'][number]>();
  for (const group of held) groups.set(JSON.stringify([group.consumer, group.target, group.groupId]), { ...group, release: true });
  for (const { entry, groupSeq } of rows) {
    if (groupSeq === null || entry.groupId === undefined) continue;
    const name = JSON.stringify([entry.consumer, entry.target, entry.groupId]);
    const release = (groups.get(name)?.release ?? true) && !leftIds.has(entry.id);
    groups.set(name, { consumer: entry.consumer, target: entry.target, groupId: entry.groupId, release });
  }
  return [...groups.values()];
}

/**
 * Sends rows held under one lease and marks them in one statement: dispatched, failed with the
 * target's reason, or left (still leased, with the reason of their last try) for a later run.
 * The same for the invocation that wrote the rows and for the relay.
 *
 * @example
 * ```ts
 * const { sent, failed, left } = await dispatchRows(rows, { db, publishers, holder, attempts: 3, remainingMs, marginMs: 5000, policy });
 * ```
 */
export async function dispatchRows(rows: readonly QueuedRow[], settings: DispatchSettings, held: readonly HeldGroup[] = []): Promise<DispatchCounts> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), Math.min(Math.max(0, settings.remainingMs() - settings.marginMs / 2), MAX_LEASE_MS));
  try {
    const results = await sendRows(settings.publishers, rows, {
      attempts: settings.attempts, backoff: SEND_BACKOFF, remainingMs: settings.remainingMs, marginMs: settings.marginMs, signal: abort.signal,
    });
    const marks: Marks = { holder: settings.holder, ...results, groups: heldGroups(rows, results.left, held) };
    const { rows: counted } = await retry(() => settings.db.query<{ sent: number; refused: number }>(markStatement(marks)), settings.policy);
    const sent = Number(counted[0]?.sent ?? 0);
    const failed = Number(counted[0]?.refused ?? 0);
    return { sent, failed, left: rows.length - sent - failed };
  } finally {
    clearTimeout(timer);
  }
}
