import type { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import type { RDSDataClient } from '@aws-sdk/client-rds-data';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type pg from 'pg';
import { runCli } from '../../functions/inbox/operator/index.js';

/** What one run of the command line wrote, and its exit code. */
export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout as JSON (the run had `--json`). */
  json<T = Record<string, unknown>>(): T;
}

/** How a test runs the line: its environment, a terminal or not, the answer a person gives, the clients. */
export interface CliSetup {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly interactive?: boolean;
  readonly answer?: boolean;
  readonly sqsClient?: SQSClient;
  readonly rdsDataClient?: RDSDataClient;
  readonly cloudFormationClient?: CloudFormationClient;
}

/**
 * Runs `sqs-inbox ARGS` in the test's process, as the package's bin (functions/inbox/operator/cli/main.ts) does with the process's io.
 *
 * @example
 * ```ts
 * const run = await sqsInbox(['status', '--json'], { env: { DATABASE_URL: url } });
 * ```
 */
export async function sqsInbox(args: readonly string[], setup: CliSetup): Promise<CliRun & { asked: string[] }> {
  let stdout = '';
  let stderr = '';
  const asked: string[] = [];
  const code = await runCli(args, {
    env: setup.env,
    stdout: (text) => { stdout += text; },
    stderr: (text) => { stderr += text; },
    interactive: setup.interactive ?? false,
    ask: async (question) => { asked.push(question); return setup.answer ?? false; },
    actor: 'on-call@test',
    ...(setup.sqsClient === undefined ? {} : { sqsClient: () => setup.sqsClient! }),
    ...(setup.rdsDataClient === undefined ? {} : { rdsDataClient: () => setup.rdsDataClient! }),
    ...(setup.cloudFormationClient === undefined ? {} : { cloudFormationClient: () => setup.cloudFormationClient! }),
  });
  return { code, stdout, stderr, asked, json: <T>() => JSON.parse(stdout) as T };
}

/** The kit's tables as they are, row for row, to compare before and after a command. */
export async function kitTables(pool: pg.Pool): Promise<Record<string, unknown[]>> {
  const tables = ['consumed_message', 'kept_message', 'outbox_message', 'outbox_group', 'operator_audit'];
  const snapshot: Record<string, unknown[]> = {};
  for (const table of tables) snapshot[table] = (await pool.query(`SELECT * FROM ${table} ORDER BY 1, 2, 3`)).rows;
  return snapshot;
}
