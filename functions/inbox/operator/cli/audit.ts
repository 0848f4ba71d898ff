import { randomUUID } from 'node:crypto';
import type { Transaction } from '../../database/database.js';
import { sql } from '../../sql/sql.js';

/** One command run's audit: who runs it, under one run id. */
export interface AuditRun {
  readonly runId: string;
  readonly actor: string;
  readonly command: string;
}

/**
 * A run of `command` by `actor`, with a run id of its own.
 *
 * @example
 * ```ts
 * const run = auditRun('outbox retry', 'ana@laptop');
 * ```
 */
export function auditRun(command: string, actor: string): AuditRun {
  return { runId: randomUUID(), actor, command };
}

/**
 * Writes the audit row of a change in the change's own transaction: what it touched and how many rows.
 *
 * @example
 * ```ts
 * await db.transaction(async (tx) => { await change(tx); await writeAudit(tx, run, { ids }, ids.length); });
 * ```
 */
export async function writeAudit(tx: Transaction, run: AuditRun, subject: Readonly<Record<string, unknown>>, rowCount: number): Promise<void> {
  await tx.query(sql`INSERT INTO operator_audit (run_id, actor, command, subject, row_count)
    VALUES (${sql.uuid(run.runId)}::uuid, ${run.actor}, ${run.command}, ${sql.json(subject)}::jsonb, ${rowCount})`);
}
