import type { Database } from '../database/database.js';
import { sql } from '../sql/sql.js';
import type { CleanupOptions, CleanupReport } from './cleanup.js';
import { batchedDeleteOptions, deleteInBatches } from './delete-in-batches.js';

/**
 * Deletes the kept messages (rejected messages, collisions' bodies) kept longer ago than the
 * retention (the options of `cleanupInbox`, counted from when each was kept; keep it longer than the
 * inbox's, as a person has to notice a rejection, fix its cause and replay it), in bounded batches (`FOR UPDATE SKIP LOCKED`, so a replay in progress holds its row).
 *
 * @example
 * ```ts
 * const report = await cleanupKept(db, { retentionMs: 90 * 86_400_000, remainingMs: () => context.getRemainingTimeInMillis() });
 * ```
 */
export function cleanupKept(db: Database, options: CleanupOptions): Promise<CleanupReport> {
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
