import type { Database } from '../database/database.js';
import { sql } from '../sql/sql.js';
import type { CleanupOptions } from './cleanup.js';
import { batchedDeleteOptions, deleteInBatches } from './delete-in-batches.js';

/** Options of `cleanupOutbox`: those of `cleanupInbox`, the retention counted from each row's dispatch. */
export interface OutboxCleanupOptions extends Omit<CleanupOptions, 'retentionMs'> {
  /** Dispatched rows older than this (since their dispatch) are deleted; at least one minute. */
  readonly retentionMs: number;
}

/** What an outbox cleanup run did. */
export interface OutboxCleanupReport {
  /** Dispatched rows deleted. */
  deleted: number;
  /** FIFO groups deleted: nothing open in them, untouched for the retention. */
  groupsDeleted: number;
  batches: number;
  /** Nothing past the retention was left (apart from rows locked at that moment). */
  done: boolean;
}

/**
 * Deletes the outbox rows that were dispatched longer ago than the retention, in bounded batches
 * (`FOR UPDATE SKIP LOCKED`), then the FIFO groups with nothing open that nobody touched for as
 * long (a group's numbering then starts again, behind closed rows only). Rows neither dispatched
 * nor failed are never deleted, and failed rows neither: they wait for a person.
 *
 * @example
 * ```ts
 * const report = await cleanupOutbox(db, { retentionMs: 7 * 86_400_000, remainingMs: () => context.getRemainingTimeInMillis() });
 * ```
 */
export async function cleanupOutbox(db: Database, options: OutboxCleanupOptions): Promise<OutboxCleanupReport> {
  const settings = batchedDeleteOptions(options);
  const { batchSize } = settings;
  const before = sql`now() - make_interval(secs => ${options.retentionMs / 1000})`;
  const rows = await deleteInBatches(db, sql`DELETE FROM outbox_message
      WHERE id IN (
        SELECT id FROM outbox_message
        WHERE dispatched_at < ${before}
        ORDER BY dispatched_at
        LIMIT ${batchSize}
        FOR UPDATE SKIP LOCKED)`, settings);
  const groups = rows.done
    ? await deleteInBatches(db, sql`DELETE FROM outbox_group
      WHERE (consumer_name, target, group_id) IN (
        SELECT consumer_name, target, group_id FROM outbox_group
        WHERE open_rows = 0 AND touched_at < ${before}
        LIMIT ${batchSize}
        FOR UPDATE SKIP LOCKED)`, settings)
    : { deleted: 0, batches: 0, done: false };
  return { deleted: rows.deleted, groupsDeleted: groups.deleted, batches: rows.batches + groups.batches, done: rows.done && groups.done };
}
