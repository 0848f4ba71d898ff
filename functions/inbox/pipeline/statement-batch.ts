import { classifyExisting, guardedStatement, type ClaimTarget } from '../claim/claim.js';
import { claimedKeysStatement, type ClaimedKeyRow } from '../claim/claimed-keys.js';
import type { Database } from '../database/database.js';
import type { ResolvedOptions, StatementModeOptions } from '../options.js';
import type { BatchWork } from './batch-work.js';
import type { OutboxBatch, StatementWrites } from '../outbox/outbox-batch.js';
import type { SqlStatement } from '../sql/sql.js';
import type { Lane } from './lanes.js';
import type { PreparedRecord, RecordResult } from './prepared-record.js';

/** A record that goes in the batch: its claim, its guarded statement and its outbox rows. */
interface Candidate<R> {
  readonly item: PreparedRecord<R>;
  readonly target: ClaimTarget;
  readonly statement: SqlStatement;
  readonly text: string;
  readonly writes: StatementWrites | undefined;
}

/** What the batch settled before the lanes run: records it committed, or found claimed already, and how long that took. */
export type BatchSettled<R> = Map<PreparedRecord<R>, { readonly result: RecordResult; readonly durationMs: number }>;

/** What building a record's statement needs. */
/** Runs `work` for a record (inside the record's span when something traces). */
export type Within<R> = <X>(item: PreparedRecord<R>, work: () => Promise<X>) => Promise<X>;

interface Builder<T, R> {
  readonly options: ResolvedOptions<T, R>;
  readonly statement: StatementModeOptions<T, R>['statement'];
  readonly defaultParse: (record: R) => unknown;
  readonly outbox: OutboxBatch | undefined;
  /**
   * How long the batch's transaction may sit idle: the invocation's remaining time. A dead
   * invocation sends no rollback, and its batch's locks (claims, FIFO outbox groups) would
   * otherwise stay until the Data API's 3-minute idle timeout.
   */
  readonly idleTimeoutMs: number | undefined;
  /** Runs a record's building inside its span, so the outbox rows it writes store that span's context. */
  readonly within: Within<R>;
}

// SQL text holds no NUL, so texts that join alike are the same text.
const textOf = (statement: SqlStatement) => statement.strings.join('\u0000');

/** The record's guarded statement, or undefined when any step of it throws (the record then runs on its own, which says why). */
async function candidateOf<T, R>(item: PreparedRecord<R>, build: Builder<T, R>): Promise<Candidate<R> | undefined> {
  if (!item.key.ok) return undefined;
  const { options } = build;
  try {
    const message = options.parse ? await options.parse(item.record) : (build.defaultParse(item.record) as T);
    const ctx = { record: item.record, key: item.key.key };
    const effect = build.statement(message, ctx);
    const writes = build.outbox?.inStatement(message, ctx);
    const target: ClaimTarget = { consumer: options.consumer, key: item.key.key, hash: item.hash, lockTimeoutMs: options.lockTimeoutMs, idleTimeoutMs: build.idleTimeoutMs };
    const statement = guardedStatement(target, effect, writes?.addition);
    return { item, target, statement, text: textOf(statement), writes };
  } catch {
    return undefined;
  }
}

/**
 * The lane's records that can go in the batch without reordering it: from its first record, while
 * each builds, shares the first one's text and has a key no other record of the batch has (a second
 * claim of a key in one batch is always taken, and would fail it).
 */
async function lanePrefix<T, R>(lane: Lane<PreparedRecord<R>>, build: Builder<T, R>, keys: Set<string>): Promise<Candidate<R>[]> {
  const taken: Candidate<R>[] = [];
  for (const item of lane.items) {
    if (item.key.ok && keys.has(item.key.key)) break;
    const candidate = await build.within(item, () => candidateOf(item, build));
    if (candidate === undefined || (taken[0] !== undefined && taken[0].text !== candidate.text)) break;
    keys.add(candidate.target.key);
    taken.push(candidate);
  }
  return taken;
}

/** Whether two records or more could go in a batch, by their keys alone: nothing is built for fewer. */
function twoOrMore<R>(lanes: readonly Lane<PreparedRecord<R>>[]): boolean {
  const keys = new Set<string>();
  for (const lane of lanes) {
    for (const item of lane.items) {
      if (!item.key.ok || keys.has(item.key.key)) break;
      keys.add(item.key.key);
      if (keys.size >= 2) return true;
    }
  }
  return false;
}

/** Every lane's prefix, grouped by text (a lane's records share one, so no lane is reordered). */
async function candidatesOf<T, R>(lanes: readonly Lane<PreparedRecord<R>>[], build: Builder<T, R>): Promise<Candidate<R>[]> {
  const keys = new Set<string>();
  const byText = new Map<string, Candidate<R>[]>();
  for (const lane of lanes) {
    for (const candidate of await lanePrefix(lane, build, keys)) {
      const group = byText.get(candidate.text) ?? [];
      group.push(candidate);
      byText.set(candidate.text, group);
    }
  }
  return [...byText.values()].flat();
}

/** Commits the candidates' statements in one batch; false when it was rolled back, whatever the reason. */
async function commitBatch<R>(db: Database, outbox: OutboxBatch | undefined, candidates: readonly Candidate<R>[]): Promise<boolean> {
  try {
    await db.batch!(candidates.map((candidate) => candidate.statement));
  } catch {
    return false;
  }
  await outbox?.committedInBatch(candidates.flatMap((candidate) => (candidate.writes ? [candidate.writes] : [])));
  return true;
}

/** The candidates' keys that are claimed already, with their rows; undefined when the read failed. */
async function claimedAlready<R>(db: Database, consumer: string, candidates: readonly Candidate<R>[]): Promise<Map<string, ClaimedKeyRow> | undefined> {
  try {
    const { rows } = await db.query<ClaimedKeyRow>(claimedKeysStatement(consumer, candidates.map((candidate) => candidate.target.key)));
    return new Map(rows.map((row) => [String(row.message_id), row]));
  } catch {
    return undefined;
  }
}

/**
 * Batched statement mode: the records that can go together without reordering a lane (see
 * `lanePrefix`) are committed in one `db.batch`. When that fails for any reason (a duplicate's
 * claim, a statement's error, a lock timeout), the batch's keys are read in one statement: the
 * records whose key is claimed are settled as duplicate or collision, and the rest go in one more
 * batch. What is not settled here runs one statement a record, as without batching, so every
 * outcome is the one it would be without it (their `parse` and `statement` are called again then).
 * A batch of one record is not tried.
 *
 * @example
 * ```ts
 * const settled = await runStatementBatch(lanes, { options, defaultParse: (r) => source.parse(r), policy, outbox, remainingMs });
 * settled.get(item)?.result // { kind: 'processed' }
 * ```
 */
export async function runStatementBatch<T, R>(
  lanes: readonly Lane<PreparedRecord<R>>[], work: BatchWork<T, R>, within: Within<R> = (_, run) => run(),
): Promise<BatchSettled<R>> {
  const { options, defaultParse, outbox, remainingMs } = work;
  const settled: BatchSettled<R> = new Map();
  const { db, mode } = options;
  if (mode.kind !== 'statement' || !options.batchStatements || db.batch === undefined || !twoOrMore(lanes) || remainingMs() < options.deadlineMarginMs) return settled;
  const started = Date.now();
  const left = remainingMs();
  const idleTimeoutMs = Number.isFinite(left) ? Math.max(1, Math.ceil(left)) : undefined;
  const candidates = await candidatesOf(lanes, { options, statement: mode.statement, defaultParse, outbox, idleTimeoutMs, within });
  if (candidates.length < 2) return settled;
  const settle = (candidate: Candidate<R>, result: RecordResult) => settled.set(candidate.item, { result, durationMs: Date.now() - started });
  if (await commitBatch(db, outbox, candidates)) {
    for (const candidate of candidates) settle(candidate, { kind: 'processed' });
    return settled;
  }
  const claimed = await claimedAlready(db, options.consumer, candidates);
  if (claimed === undefined) return settled;
  const fresh: Candidate<R>[] = [];
  for (const candidate of candidates) {
    const found = classifyExisting(candidate.target, claimed.get(candidate.target.key));
    if (found === undefined) fresh.push(candidate);
    else settle(candidate, { kind: found.kind });
  }
  const retry = fresh.length >= 2 && fresh.length < candidates.length && remainingMs() >= options.deadlineMarginMs;
  if (retry && await commitBatch(db, outbox, fresh)) {
    for (const candidate of fresh) settle(candidate, { kind: 'processed' });
  }
  return settled;
}
