import type { Database } from './database/database.js';
import { sql } from './sql/sql.js';

/** What records its runs in `kit_run`: the cleanup (one for the database) and each consumer's outbox relay. */
export type KitRunComponent = 'cleanup' | 'relay';

/**
 * Records the end of a cleanup or relay run in `kit_run` (the kit's migration 0007), replacing the
 * last one, so `npx sqs-inbox status` can say when each last ran and what it did. `consumer` is the
 * relay's; the cleanup serves every consumer of its database and records none.
 *
 * `relayOutbox` records its runs itself; the cleanup function `InboxDatabase` deploys records its
 * own, and a cleanup of yours does it with this at its end.
 *
 * @example
 * ```ts
 * import { cleanupInbox, recordKitRun } from 'sqs-inbox/cleanup';
 *
 * await recordKitRun(db, 'cleanup', await cleanupInbox(db, { retentionMs: 14 * 86_400_000 }));
 * ```
 */
export async function recordKitRun(db: Database, component: KitRunComponent, report: object, consumer = ''): Promise<void> {
  await db.query(sql`INSERT INTO kit_run (component, consumer_name, ran_at, report) VALUES (${component}, ${consumer}, now(), ${sql.json(report)}::jsonb)
    ON CONFLICT (component, consumer_name) DO UPDATE SET ran_at = excluded.ran_at, report = excluded.report`);
}
