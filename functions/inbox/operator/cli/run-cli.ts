import type { Database } from '../../database/database.js';
import { InboxError } from '../../errors.js';
import { OperatorCommandError } from '../errors.js';
import { parseCommand } from './arguments.js';
import type { CliIo } from './cli-io.js';
import type { Command } from './command.js';
import { openConnection } from './connection.js';
import { dlqRedriveCommand } from './dlq-commands.js';
import { helpOf } from './help.js';
import { outboxListCommand, outboxPurgeCommand, outboxRetryCommand } from './outbox-commands.js';
import { rejectedListCommand, rejectedPurgeCommand, rejectedReplayCommand } from './rejected-commands.js';
import { showCommand } from './show-command.js';
import { statusCommand } from './status-command.js';

/** Every command of the line, noun then verb. */
export const COMMANDS: readonly Command[] = [
  statusCommand, showCommand, rejectedListCommand, rejectedReplayCommand, rejectedPurgeCommand,
  outboxListCommand, outboxRetryCommand, outboxPurgeCommand, dlqRedriveCommand,
];

/** The command the words name, and the arguments after its name. */
function commandOf(argv: readonly string[]): { command: Command; rest: string[] } | { words: string[] } {
  const flagAt = argv.findIndex((word) => word.startsWith('-'));
  const words = argv.slice(0, Math.min(2, flagAt < 0 ? argv.length : flagAt));
  for (const count of [2, 1].filter((count) => count <= words.length)) {
    const command = COMMANDS.find((candidate) => candidate.name === words.slice(0, count).join(' '));
    if (command !== undefined) return { command, rest: argv.slice(count) };
  }
  return { words: words.filter((word) => COMMANDS.some((command) => command.name.split(' ')[0] === word)).slice(0, 1) };
}

/** An error as one line on stderr: the kit's errors say the fix; a permission error gets one. */
function sentenceOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown }).code;
  if (code === '42501' || /SQLState: 42501|permission denied/.test(message)) {
    return `${message.split('\n')[0]}: sign in as the operator role (its secret, or its URL), whose grants the kit's migrations give on deploy.`;
  }
  return error instanceof InboxError ? message : `${error instanceof Error ? error.name : 'Error'}: ${message.split('\n')[0]}`;
}

/**
 * Runs one command line of `sqs-inbox` (the words after the program's name) and answers its exit
 * code: 0 all is well, 1 something needs a person (or a change did not fully go), 2 the command
 * could not run (its error on stderr, one sentence with the fix). `cli/main.ts` (the package's bin) runs it with the
 * process's io.
 *
 * @example
 * ```ts
 * import { runCli } from 'sqs-inbox/operator';
 *
 * process.exitCode = await runCli(['status', '--json'], io);
 * ```
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const found = commandOf(argv);
  const helpAsked = argv.includes('--help') || argv.includes('-h');
  if (!('command' in found)) {
    const unknown = argv.find((word) => !word.startsWith('-'));
    if (unknown !== undefined && found.words.length === 0) {
      io.stderr(`Unknown command ${JSON.stringify(unknown)}: run \`sqs-inbox --help\` for the list.\n`);
      return 2;
    }
    io[helpAsked ? 'stdout' : 'stderr'](`${helpOf(COMMANDS, found.words)}\n`);
    return helpAsked ? 0 : 2;
  }
  const { command, rest } = found;
  let db: Database | undefined;
  try {
    const { values, positionals } = parseCommand(rest, command.options, command.name);
    if (values.help === true) {
      io.stdout(`${helpOf(COMMANDS, command.name.split(' '))}\n`);
      return 0;
    }
    if (positionals.length > 0 && command.usage === '') throw new OperatorCommandError(`\`sqs-inbox ${command.name}\` takes no ${JSON.stringify(positionals[0])}: run \`sqs-inbox ${command.name} --help\` for its options.`);
    const connection = await openConnection(values, io);
    db = connection.db;
    const result = await command.run({ values, positionals, io, db, stack: connection.stack });
    io.stdout(values.json === true ? `${JSON.stringify(result.json, null, 2)}\n` : `${result.text}\n`);
    return result.exitCode;
  } catch (error) {
    io.stderr(`sqs-inbox ${command.name}: ${sentenceOf(error)}\n`);
    return 2;
  } finally {
    await db?.close().catch(() => undefined);
  }
}
