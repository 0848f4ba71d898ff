import type { Database } from '../database/database.js';
import { sql } from '../sql/sql.js';
import type { CleanupOptions, CleanupReport } from './cleanup.js';
import { batchedDeleteOptions, deleteInBatches } from './delete-in-batches.js';

/** Options of `cleanupKept`: those of `cleanupInbox`, the retention counted from when a message was kept. */
export interface KeptCleanupOptions extends Omit<CleanupOptions, 'retentionMs'> {
  /**
   * Kept messages older than this are deleted; at least one minute. Keep it longer than the inbox's:
   * a person has to notice a rejection, fix its cause and replay it.
   */
  readonly retentionMs: number;
}

/**
 * Deletes the kept messages (rejected messages, collisions' bodies) kept longer ago than the
 * retention, in bounded batches (`FOR UPDATE SKIP LOCKED`, so a replay in progress holds its row).
 *
 * @example
 * ```ts
 * const report = await cleanupKept(db, { retentionMs: 90 * 86_400_000, remainingMs: () => context.getRemainingTimeInMillis() });
 * ```
 */
export function cleanupKept(db: Database, options: KeptCleanupOptions): Promise<CleanupReport> {
  const settings = batchedDeleteOptions(options);
  // The ids as an array, so the DELETE reaches them by the primary key (see cleanupOutbox).
  return deleteInBatches(db, sql`DELETE FROM kept_message
      WHERE id = ANY (ARRAY(
        SELECT id FROM kept_message
        WHERE kept_at < now() - make_interval(secs => ${options.retentionMs / 1000})
        ORDER BY kept_at
        LIMIT ${settings.batchSize}
        FOR UPDATE SKIP LOCKED))`, settings);
}
