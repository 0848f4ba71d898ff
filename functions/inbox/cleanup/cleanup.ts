import type { Database } from '../database/database.js';
import { sql } from '../sql/sql.js';
import { batchedDeleteOptions, deleteInBatches } from './delete-in-batches.js';

/** Options of `cleanupInbox`. */
export interface CleanupOptions {
  /**
   * Rows processed longer ago than this are deleted. At least one minute, a floor against a unit
   * mistake (seconds given as milliseconds); the InboxConsumer construct checks it against the
   * queue's retention at synth time.
   */
  readonly retentionMs: number;
  /**
   * Rows deleted per statement, so no statement holds locks or runs long; at most
   * `CLEANUP_BATCH_SIZE.max`.
   * @default 1000 (`CLEANUP_BATCH_SIZE.default`)
   */
  readonly batchSize?: number;
  /**
   * Milliseconds left to work, asked before each batch.
   * @default no deadline
   */
  readonly remainingMs?: () => number;
  /**
   * No batch is started with less time left than this.
   * @default 5000
   */
  readonly marginMs?: number;
}

/** What a cleanup run did. */
export interface CleanupReport {
  deleted: number;
  batches: number;
  /**
   * True when the last batch came back short: nothing past the retention was left, apart from rows
   * locked by a transaction at that moment (skipped, not waited on; the next run takes them).
   * False when the run stopped for lack of time with rows perhaps left.
   */
  done: boolean;
}

/**
 * Deletes inbox rows past the retention in bounded batches (a keyed subquery with LIMIT and SKIP
 * LOCKED, never one unbounded DELETE), until a batch comes back short or time runs out. Keep the
 * retention at least as long as the queue's (and DLQ's) message retention, or a late redelivery is
 * no longer seen as a duplicate.
 *
 * @example
 * ```ts
 * const report = await cleanupInbox(db, { retentionMs: 14 * 86_400_000, remainingMs: () => context.getRemainingTimeInMillis() });
 * ```
 */
export async function cleanupInbox(db: Database, options: CleanupOptions): Promise<CleanupReport> {
  const settings = batchedDeleteOptions(options);
  return deleteInBatches(db, sql`DELETE FROM consumed_message
      WHERE (consumer_name, message_id) IN (
        SELECT consumer_name, message_id FROM consumed_message
        WHERE processed_at < now() - make_interval(secs => ${options.retentionMs / 1000})
        ORDER BY processed_at
        LIMIT ${settings.batchSize}
        FOR UPDATE SKIP LOCKED)`, settings);
}
