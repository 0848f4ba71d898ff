import { COMMON_OPTIONS, type OptionSpec } from './arguments.js';
import type { Command } from './command.js';

function optionLines(options: Readonly<Record<string, OptionSpec>>): string[] {
  const flag = (name: string, spec: OptionSpec) => `${spec.short ? `-${spec.short}, ` : ''}--${name}${spec.type === 'string' ? ' VALUE' : ''}`;
  const entries = Object.entries(options);
  const width = Math.max(...entries.map(([name, spec]) => flag(name, spec).length));
  return entries.map(([name, spec]) => `  ${flag(name, spec).padEnd(width)}  ${spec.description}`);
}

/**
 * The help of a level: the line's commands (no words), a noun's verbs (`outbox`), or one command's options.
 *
 * @example
 * ```ts
 * helpOf(commands, ['outbox']) // lists `outbox list` and `outbox retry`
 * ```
 */
export function helpOf(commands: readonly Command[], words: readonly string[]): string {
  const exact = commands.find((command) => command.name === words.join(' '));
  if (exact !== undefined) {
    return [`Usage: sqs-inbox ${exact.name}${exact.usage ? ` ${exact.usage}` : ''} [options]`, '', exact.summary, '', 'Options:', ...optionLines(exact.options),
      '', 'Connection and output:', ...optionLines(COMMON_OPTIONS)].join('\n');
  }
  const below = commands.filter((command) => words.every((word, index) => command.name.split(' ')[index] === word));
  const width = Math.max(...below.map((command) => command.name.length));
  return [
    `Usage: sqs-inbox ${words.length === 0 ? '<command>' : `${words.join(' ')} <verb>`} [options]`, '',
    ...(words.length === 0 ? ['The operator\'s command line of sqs-inbox: see a deployed inbox and outbox, and act on them safely.', ''] : []),
    'Commands:', ...below.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`), '',
    `Run \`sqs-inbox ${words.length === 0 ? '<command>' : words.join(' ') + ' <verb>'} --help\` for its options. Exit codes: 0 all is well, 1 something needs a person, 2 the command could not run.`,
  ].join('\n');
}
