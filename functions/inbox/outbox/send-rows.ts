import { batches } from '../producer/batches.js';
import { traceAttributeBytes } from '../producer/sqs-entry.js';
import { retryEntries, type Backoff, type EntryAnswer } from '../retry.js';
import type { OutboxEntry } from './outbox-message.js';
import { publishSafely, type ResolvedPublisher } from './publisher.js';

/** A row to send: its entry, its place in its FIFO group (null when unordered), and its size. */
export interface QueuedRow {
  readonly entry: OutboxEntry;
  readonly groupSeq: number | null;
  readonly sizeBytes: number;
}

/** How rows are sent: attempts and backoff of each entry, and the time they may take. */
export interface SendPolicy {
  /** Calls that carry an entry, the first included. */
  readonly attempts: number;
  readonly backoff: Backoff;
  readonly remainingMs: () => number;
  /** No call, and no retry wait, is started with less than this left. */
  readonly marginMs: number;
  /** Aborts the calls in flight when time is out. */
  readonly signal: AbortSignal;
}

/** What became of the rows: sent, refused for ever (with the reason), or left for a later try. */
export interface SendResults {
  readonly sent: string[];
  readonly refused: { readonly id: string; readonly reason: string }[];
  readonly left: { readonly id: string; readonly reason: string }[];
}

/**
 * A FIFO target's rows interleaved by their place in their group (every group's first row, then
 * every second one, ...), each group in order, so a batch holding one row of each group fills up.
 */
function sendingOrder(rows: readonly QueuedRow[], ordered: boolean): QueuedRow[] {
  if (!ordered) return [...rows];
  const byGroup = new Map<string | undefined, QueuedRow[]>();
  for (const row of rows) byGroup.set(row.entry.groupId, [...(byGroup.get(row.entry.groupId) ?? []), row]);
  const lanes = [...byGroup.values()].map((lane) => lane.sort((a, b) => (a.groupSeq ?? 0) - (b.groupSeq ?? 0)));
  const result: QueuedRow[] = [];
  for (let place = 0; result.length < rows.length; place += 1) for (const lane of lanes) if (lane[place] !== undefined) result.push(lane[place]!);
  return result;
}

async function sendToTarget(publisher: ResolvedPublisher, rows: readonly QueuedRow[], policy: SendPolicy, results: SendResults): Promise<void> {
  const blocked = new Set<string | undefined>();
  const limits = { maxEntries: publisher.maxBatchEntries, maxBytes: publisher.maxBatchBytes, ordered: publisher.fifo };
  // A row's size was counted when it was written; the trace context its entry may carry is added
  // at the send, so a batch holds room for it (a call over the bytes is refused as a whole).
  const sizeOf = (row: QueuedRow) => row.sizeBytes + traceAttributeBytes(row.entry.traceparent);
  for (const batch of batches(sendingOrder(rows, publisher.fifo), limits, sizeOf, (row) => row.entry.groupId)) {
    const ready = batch.filter((row) => {
      if (!publisher.fifo || !blocked.has(row.entry.groupId)) return true;
      results.left.push({ id: row.entry.id, reason: 'an earlier row of its group did not go' });
      return false;
    });
    if (ready.length === 0) continue;
    if (policy.signal.aborted || policy.remainingMs() < policy.marginMs) {
      results.left.push(...ready.map((row) => ({ id: row.entry.id, reason: 'not sent: the invocation was short of time' })));
      continue;
    }
    const outcome = await retryEntries(ready, async (pending): Promise<EntryAnswer<undefined, string>[]> => {
      const answers = await publishSafely(publisher, pending.map((row) => row.entry), policy.signal);
      return answers.map((answer) => (answer.kind === 'sent'
        ? { kind: 'done', value: undefined }
        : { kind: answer.kind === 'refused' ? 'failed' : 'retry', failure: answer.reason }));
    }, { attempts: policy.attempts, backoff: policy.backoff, deadline: { remainingMs: policy.remainingMs, marginMs: policy.marginMs } });
    results.sent.push(...outcome.done.map(({ entry }) => entry.entry.id));
    results.refused.push(...outcome.failed.map(({ entry, failure }) => ({ id: entry.entry.id, reason: failure })));
    for (const { entry, failure } of outcome.left) {
      results.left.push({ id: entry.entry.id, reason: failure });
      blocked.add(entry.entry.groupId);
    }
  }
}

/**
 * Sends rows to their targets, the targets at once and each target's batches one after another:
 * batches within the publisher's limits, each entry retried with backoff while time allows, and on
 * a FIFO target one row of a group a call and nothing of a group after a row that did not go (a
 * refused row is closed: the group goes on). A row whose target is unknown is left.
 *
 * @example
 * ```ts
 * const { sent, refused, left } = await sendRows(publishers, rows, { attempts: 3, backoff: { baseMs: 50 }, remainingMs, marginMs: 2500, signal });
 * ```
 */
export async function sendRows(publishers: ReadonlyMap<string, ResolvedPublisher>, rows: readonly QueuedRow[], policy: SendPolicy): Promise<SendResults> {
  const results: SendResults = { sent: [], refused: [], left: [] };
  const byTarget = new Map<string, QueuedRow[]>();
  for (const row of rows) byTarget.set(row.entry.target, [...(byTarget.get(row.entry.target) ?? []), row]);
  await Promise.all([...byTarget].map(async ([target, targetRows]) => {
    const publisher = publishers.get(target);
    if (publisher === undefined) {
      results.left.push(...targetRows.map((row) => ({ id: row.entry.id, reason: `no publisher for target ${target} in this run` })));
      return;
    }
    await sendToTarget(publisher, targetRows, policy, results);
  }));
  return results;
}
