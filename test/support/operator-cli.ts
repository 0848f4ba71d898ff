import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import type { RDSDataClient } from '@aws-sdk/client-rds-data';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type pg from 'pg';
import { runCli } from '../../functions/inbox/operator/index.js';
import { migrateAsDeployed } from '../../local/index.js';
import type { DeployedDatabase, LocalDeployment } from '../../local/migrate-as-deployed.js';
import { emptyDatabase, type FreshDatabase } from './database.js';

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

/** A fresh database migrated as `InboxDatabase` deploys it: the kit's migrations, one of the project's, the roles. */
export interface ProjectDatabase {
  readonly target: FreshDatabase;
  readonly deployed: DeployedDatabase;
  /** Drops the database and the migration's folder. */
  close(): Promise<void>;
}

/**
 * A fresh database with the kit's migrations, the project's `migration` (its tables and their
 * grants) and `roles`, each signing in with its own URL, as the operator tests need it.
 *
 * @example
 * ```ts
 * const project = await deployProject('CREATE TABLE payments (...); GRANT ...;', { pay_consumer: 'consumer', kit_operator: 'operator' });
 * ```
 */
export async function deployProject(migration: string, roles: LocalDeployment['roles']): Promise<ProjectDatabase> {
  const target = await emptyDatabase();
  const folder = await mkdtemp(path.join(os.tmpdir(), 'operator-project-'));
  try {
    await writeFile(path.join(folder, '0001_project.sql'), migration);
    const deployed = await migrateAsDeployed(target.url, { migrations: folder, roles });
    return {
      target, deployed,
      close: async () => {
        await target.close();
        await rm(folder, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await target.close();
    await rm(folder, { recursive: true, force: true });
    throw error;
  }
}
