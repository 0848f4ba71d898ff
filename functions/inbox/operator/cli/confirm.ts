import { OperatorCommandError } from '../errors.js';
import type { OptionValues } from './arguments.js';
import type { CliIo } from './cli-io.js';

/** The options of every command that changes something. */
export const CHANGE_OPTIONS = {
  'dry-run': { type: 'boolean', description: 'show what it would touch, and change nothing' },
  yes: { type: 'boolean', short: 'y', description: 'go ahead without asking (needed without a terminal)' },
} as const;

/**
 * Whether a change of `count` rows goes ahead: with `--yes`; at a terminal, when the person says so;
 * without a terminal and without `--yes`, refused (the command exits 2 and changes nothing).
 *
 * @example
 * ```ts
 * if (!(await confirmed(values, io, 'outbox retry', 'retry 3 failed outbox rows', 3))) return cancelled;
 * ```
 */
export async function confirmed(values: OptionValues, io: CliIo, command: string, what: string, count: number, unit = 'rows'): Promise<boolean> {
  if (values.yes === true) return true;
  if (!io.interactive) {
    throw new OperatorCommandError(`\`sqs-inbox ${command}\` would ${what} (${count} ${unit}) and no terminal is there to confirm: add --yes to go ahead, or --dry-run to see what it would touch.`);
  }
  return io.ask(`${what[0]!.toUpperCase()}${what.slice(1)} (${count} ${unit})? [y/N] `);
}
