import type { Database } from '../../database/database.js';
import { sql, type SqlStatement } from '../../sql/sql.js';
import type { OptionSpec, OptionValues } from './arguments.js';
import type { CliIo, CommandResult } from './cli-io.js';
import type { Progress } from './progress.js';
import type { StackConnection } from './stack-outputs.js';

/** What a command runs with: its flags and arguments, the process's io, the database, and with `--stack` the stack's outputs. */
export interface CommandContext {
  readonly values: OptionValues;
  readonly positionals: readonly string[];
  readonly io: CliIo;
  readonly db: Database;
  readonly stack: StackConnection | undefined;
}

/** A command the line runs, by its noun and verb (`outbox retry`), with its help. */
export interface Command {
  /** Noun, then verb: `status`, `rejected replay`. */
  readonly name: string;
  /** One line in the list of commands. */
  readonly summary: string;
  /** What follows the name, `KEY` for `show`; empty when nothing. */
  readonly usage: string;
  readonly options: Readonly<Record<string, OptionSpec>>;
  run(context: CommandContext): Promise<CommandResult>;
}

/**
 * The fragments joined by AND as a WHERE clause; `WHERE true` when there is none.
 *
 * @example
 * ```ts
 * sql`SELECT id FROM kept_message ${whereAll([sql`consumer_name = ${consumer}`])}`
 * ```
 */
export function whereAll(parts: readonly SqlStatement[]): SqlStatement {
  return parts.reduce((all, part) => sql`${all} AND (${part})`, sql`WHERE true`);
}

/**
 * Runs `work` on the items a chunk at a time, telling `progress` after each, so a change of many rows
 * is bounded statements (and a visible count) instead of one long one.
 *
 * @example
 * ```ts
 * await inChunks(ids, 500, (chunk) => tx.query(sql`DELETE FROM kept_message WHERE id IN (...)`), progress);
 * ```
 */
export async function inChunks<T>(items: readonly T[], size: number, work: (chunk: readonly T[]) => Promise<unknown>, progress?: Progress): Promise<void> {
  for (let at = 0; at < items.length; at += size) {
    await work(items.slice(at, at + size));
    progress?.update(Math.min(items.length, at + size));
  }
  progress?.end();
}
