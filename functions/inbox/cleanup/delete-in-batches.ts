import type { Database } from '../database/database.js';
import { CLEANUP_BATCH_SIZE } from '../contract.js';
import { InboxConfigError } from '../errors.js';
import type { SqlStatement } from '../sql/sql.js';

/** How a cleanup deletes: rows per statement and the time it may take. */
export interface BatchedDeleteOptions {
  readonly batchSize: number;
  readonly remainingMs?: () => number;
  readonly marginMs: number;
}

/** What one batched delete did. */
export interface BatchedDeleteReport {
  deleted: number;
  batches: number;
  /** A batch came back short: nothing (that was not locked at that moment) was left. */
  done: boolean;
}

/** The floor of a retention, against a unit mistake (seconds given as milliseconds). */
export const MIN_RETENTION_MS = 60_000;

const CLEANUP_DEFAULTS = { batchSize: CLEANUP_BATCH_SIZE.default, marginMs: 5000 } as const;

/**
 * A cleanup's options with their defaults (1000 rows a statement, a 5 s margin), its retention,
 * batch size and margin checked: the same for the inbox and the outbox.
 *
 * @example
 * ```ts
 * batchedDeleteOptions({ retentionMs: 86_400_000 }) // { batchSize: 1000, marginMs: 5000, remainingMs: undefined }
 * ```
 */
export function batchedDeleteOptions(options: {
  readonly retentionMs: number; readonly batchSize?: number; readonly marginMs?: number; readonly remainingMs?: () => number;
}): BatchedDeleteOptions {
  const batchSize = options.batchSize ?? CLEANUP_DEFAULTS.batchSize;
  const marginMs = options.marginMs ?? CLEANUP_DEFAULTS.marginMs;
  if (!Number.isFinite(options.retentionMs) || options.retentionMs < MIN_RETENTION_MS) {
    throw new InboxConfigError(`retentionMs must be at least ${MIN_RETENTION_MS} (one minute), but ${String(options.retentionMs)} was given.`);
  }
  const { min, max } = CLEANUP_BATCH_SIZE;
  if (!Number.isInteger(batchSize) || batchSize < min || batchSize > max) {
    throw new InboxConfigError(`batchSize must be a whole number from ${min} to ${max}, but ${String(batchSize)} was given.`);
  }
  if (!Number.isFinite(marginMs) || marginMs < 0) {
    throw new InboxConfigError(`marginMs must be a number of milliseconds of 0 or more, but ${String(marginMs)} was given.`);
  }
  return { batchSize, marginMs, remainingMs: options.remainingMs };
}

/**
 * Runs a bounded DELETE (one that removes at most `batchSize` rows) again until it comes back
 * short or the time runs out, never starting one with less than `marginMs` left.
 *
 * @example
 * ```ts
 * const report = await deleteInBatches(db, sql`DELETE FROM t WHERE id IN (SELECT id FROM t ... LIMIT ${1000} FOR UPDATE SKIP LOCKED)`, { batchSize: 1000, marginMs: 5000 });
 * ```
 */
export async function deleteInBatches(db: Database, statement: SqlStatement, options: BatchedDeleteOptions): Promise<BatchedDeleteReport> {
  const report: BatchedDeleteReport = { deleted: 0, batches: 0, done: false };
  while (!options.remainingMs || options.remainingMs() >= options.marginMs) {
    const { rowCount } = await db.query(statement);
    report.batches += 1;
    report.deleted += rowCount;
    if (rowCount < options.batchSize) {
      report.done = true;
      break;
    }
  }
  return report;
}
