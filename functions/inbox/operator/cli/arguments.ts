import { parseArgs } from 'node:util';
import { OperatorCommandError } from '../errors.js';

/** One option of a command, as `parseArgs` takes it, with its line in `--help`. */
export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly multiple?: boolean;
  readonly short?: string;
  readonly description: string;
}

/** The values a command was given. */
export type OptionValues = Readonly<Record<string, string | boolean | (string | boolean)[] | undefined>>;

/** Where the database is, and how to answer: every command takes these. */
export const COMMON_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  'database-url': { type: 'string', description: 'a PostgreSQL URL (default: DATABASE_URL)' },
  'cluster-arn': { type: 'string', description: 'the Aurora cluster, through the Data API (default: CLUSTER_ARN)' },
  'secret-arn': { type: 'string', description: 'the secret the Data API signs in with, the operator role\'s (default: SECRET_ARN)' },
  database: { type: 'string', description: 'the database on the cluster (default: DATABASE_NAME)' },
  stack: { type: 'string', description: 'read the cluster, secret and database from this CloudFormation stack\'s sqs-inbox outputs' },
  'database-id': { type: 'string', description: 'with --stack: which InboxDatabase, when the stack has several (the <id> of its outputs)' },
  region: { type: 'string', description: 'the AWS region of the stack, the cluster and the queues (default: AWS_REGION)' },
  json: { type: 'boolean', description: 'answer in JSON, for scripts (the same fields as the table)' },
  help: { type: 'boolean', short: 'h', description: 'show this help' },
};

/**
 * The arguments after the command's name, checked against its options: an unknown flag or a
 * missing value is refused in one sentence that names the command's help.
 *
 * @example
 * ```ts
 * parseCommand(['--consumer', 'ship-orders', '--json'], options, 'status') // { values: { consumer: 'ship-orders', json: true }, positionals: [] }
 * ```
 */
export function parseCommand(args: readonly string[], options: Readonly<Record<string, OptionSpec>>, command: string): { values: OptionValues; positionals: string[] } {
  const config = Object.fromEntries(Object.entries({ ...COMMON_OPTIONS, ...options })
    .map(([name, { type, multiple, short }]) => [name, { type, ...(multiple ? { multiple } : {}), ...(short ? { short } : {}) }]));
  try {
    const { values, positionals } = parseArgs({ args: [...args], options: config, allowPositionals: true, strict: true });
    return { values, positionals };
  } catch (error) {
    const why = error instanceof Error ? error.message.split('\n')[0]!.replace(/\.$/, '') : String(error);
    throw new OperatorCommandError(`${why}: run \`sqs-inbox ${command} --help\` for its options.`);
  }
}

const UNITS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86_400 };

/**
 * A time given as a duration back from now (`90s`, `30m`, `6h`, `7d`) or as an ISO date, as a Date.
 *
 * @example
 * ```ts
 * timeOf('6h', 'since') // six hours ago
 * timeOf('2026-12-04T10:00:00Z', 'since')
 * ```
 */
export function timeOf(text: string, flag: string, now = Date.now()): Date {
  const duration = /^(\d+)([smhd])$/.exec(text);
  if (duration) return new Date(now - Number(duration[1]) * UNITS[duration[2]!]! * 1000);
  const date = new Date(text);
  if (Number.isNaN(date.getTime())) {
    throw new OperatorCommandError(`--${flag} ${JSON.stringify(text)} is neither a duration nor a date: give one like 30m, 6h, 7d or 2026-12-04T10:00:00Z.`);
  }
  return date;
}

/**
 * A whole number of at least `min`, from a flag.
 *
 * @example
 * ```ts
 * countOf('50', 'limit') // 50
 * ```
 */
export function countOf(text: string, flag: string, min = 1): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) throw new OperatorCommandError(`--${flag} ${JSON.stringify(text)} is not a whole number of at least ${min}: give one like 100.`);
  return value;
}

/** The config of an AWS SDK client: the `--region` given, else the SDK's own (AWS_REGION, the profile). */
export const awsClientConfig = (values: OptionValues): { region?: string } => (typeof values.region === 'string' ? { region: values.region } : {});
/** A string flag's value, or undefined. */
export const stringOf = (values: OptionValues, name: string): string | undefined => (typeof values[name] === 'string' ? values[name] : undefined);
/** A repeatable string flag's values. */
export const stringsOf = (values: OptionValues, name: string): string[] => (Array.isArray(values[name]) ? (values[name] as string[]) : []);
