import type { Database, Transaction } from '../../database/database.js';
import { auditRun, writeAudit } from './audit.js';
import type { CommandResult } from './cli-io.js';
import type { CommandContext } from './command.js';
import { confirmed } from './confirm.js';
import { progressOf, type Progress } from './progress.js';

/** A change of the rows a listing's filters select, as `changeRows` makes it. */
export interface RowChange<R> {
  /** Noun and verb, for the question, the refusal and the audit row. */
  readonly command: string;
  /** What it does, for the question: `retry failed outbox rows`. */
  readonly confirm: string;
  /** The flags recorded in the audit row, when given. */
  readonly flags: readonly string[];
  /** The rows it would change, oldest first; `lock` reads them FOR UPDATE, in the change's transaction. */
  read(db: Database | Transaction, lock: boolean): Promise<R[]>;
  apply(tx: Transaction, rows: readonly R[], progress: Progress): Promise<void>;
  /** What the audit row says it touched, beside the flags. */
  subject(rows: readonly R[]): Record<string, unknown>;
  table(rows: readonly R[]): string;
  /** The JSON's names of the rows it would change and of those it changed: `wouldRetry`, `retried`. */
  readonly names: { readonly would: string; readonly done: string };
  /** `Would retry 3 failed outbox rows`, `3 failed outbox rows opened again`, `Nothing retried.` */
  readonly words: { readonly would: (count: number) => string; readonly done: (count: number) => string; readonly none: string };
}

/**
 * The way every row-changing command goes: the rows shown (and nothing more with `--dry-run`), the
 * question asked or `--yes` needed, then one transaction that reads the rows again under lock (a
 * row changed since the preview is judged as it is now), changes them and writes the audit row.
 *
 * @example
 * ```ts
 * return changeRows(context, { command: 'outbox purge', confirm: 'delete failed outbox rows for good', ... });
 * ```
 */
export async function changeRows<R>({ values, io, db }: CommandContext, change: RowChange<R>): Promise<CommandResult> {
  const preview = await change.read(db, false);
  if (values['dry-run'] === true || preview.length === 0) {
    return { json: { dryRun: values['dry-run'] === true, [change.names.would]: preview }, text: `${change.words.would(preview.length)}:\n${change.table(preview)}`, exitCode: 0 };
  }
  if (!(await confirmed(values, io, change.command, change.confirm, preview.length))) {
    return { json: { [change.names.done]: [] }, text: change.words.none, exitCode: 0 };
  }
  const run = auditRun(change.command, io.actor);
  const flags = Object.fromEntries(change.flags.filter((name) => values[name] !== undefined).map((name) => [name, values[name]]));
  const changed = await db.transaction(async (tx) => {
    const rows = await change.read(tx, true);
    if (rows.length > 0) await change.apply(tx, rows, progressOf(io, change.command, rows.length));
    await writeAudit(tx, run, { ...flags, ...change.subject(rows) }, rows.length);
    return rows;
  });
  return {
    json: { runId: run.runId, [change.names.done]: changed },
    text: `${change.table(changed)}\n${change.words.done(changed.length)} (audit run ${run.runId}).`,
    exitCode: 0,
  };
}
