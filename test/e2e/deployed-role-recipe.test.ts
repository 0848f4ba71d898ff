import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { sql } from '../../functions/inbox/index.js';
import { pgDatabase } from '../../functions/inbox/pg/index.js';
import { createScratchDatabase, migrateAsDeployed } from '../../local/index.js';
import { projectSnippets } from '../support/doc-snippets.js';
import { ROOT } from '../support/documentation.js';
import { entryPoints } from '../support/public-names.js';

const run = promisify(execFile);
const RUN_TIMEOUT_MS = 150_000;

/** The roles the recipe's test signs in with, as lib/shop-stack.ts deploys them. */
const ROLES = { ship_orders: 'consumer', ship_orders_kafka: 'consumer' } as const;
/** The documented project's files of the handler test: the handler, its test and the migration. */
const FILES = ['src/ship-orders.ts', 'test/ship-orders.test.ts', 'migrations/0001_orders.sql'] as const;
const GRANT_LINE = /^GRANT .* TO ship_orders\b.*\n/m;

/** `from 'sqs-inbox/...'` pointed at the entry point's source in this repository, so the recipe runs against the kit as it is. */
function onSources(code: string): string {
  const sources = entryPoints();
  return code.replace(/from 'sqs-inbox(\/[a-z-]+)?'/g, (_, sub: string | undefined) => {
    const source = sources.get(`.${sub ?? ''}`);
    if (source === undefined) throw new Error(`The recipe imports sqs-inbox${sub ?? ''}, which package.json does not export.`);
    return `from '${path.join(ROOT, source)}'`;
  });
}

let folder: string;

/** Writes the documented project, its migration changed by `migration`, into a folder of its own. */
async function writeProject(name: string, migration: (sql: string) => string): Promise<string> {
  const snippets = projectSnippets();
  const project = path.join(folder, name);
  for (const file of FILES) {
    const text = snippets.get(file);
    if (text === undefined) throw new Error(`The documentation marks no snippet ${file}.`);
    await mkdir(path.dirname(path.join(project, file)), { recursive: true });
    await writeFile(path.join(project, file), file.endsWith('.sql') ? migration(text) : onSources(text));
  }
  await writeFile(path.join(project, 'package.json'), '{ "type": "module" }\n');
  await symlink(path.join(ROOT, 'node_modules'), path.join(project, 'node_modules'), 'dir');
  return project;
}

/** One test of the project's run, as vitest's JSON reporter gives it. */
interface RecipeResult {
  readonly title: string;
  readonly status: string;
  readonly failureMessages: readonly string[];
}

/** Runs the project's vitest test on this run's PostgreSQL server: each test's result, as vitest's JSON reporter gives them. */
async function recipeTest(project: string): Promise<RecipeResult[]> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: inject('pgAdminUrl'), AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
  for (const name of ['VITEST', 'VITEST_WORKER_ID', 'VITEST_POOL_ID']) delete env[name];
  const vitest = [path.join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--root', project, '--reporter=json'];
  // vitest exits 1 when a test fails; its report is on stdout either way.
  const stdout = await run(process.execPath, vitest, { cwd: project, env, timeout: RUN_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 })
    .then(({ stdout: out }) => out, (error: { stdout?: string; stderr?: string }) => {
      if (!error.stdout?.trim().startsWith('{')) throw new Error(`The recipe's vitest gave no report: ${error.stderr ?? String(error)}`);
      return error.stdout;
    });
  const report = JSON.parse(stdout) as { testResults: { assertionResults: RecipeResult[] }[] };
  return report.testResults.flatMap(({ assertionResults }) => assertionResults.map(({ title, status, failureMessages }) => ({ title, status, failureMessages })));
}

beforeAll(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), 'deployed-role-recipe-'));
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('docs/local-testing.md: the handler test signs in as the role InboxDatabase deploys', () => {
  it('passes with the documented migration, which grants the role its table', async () => {
    const results = await recipeTest(await writeProject('granted', (text) => text));
    expect(results).toEqual([{ title: 'ships an order once, however often its message comes', status: 'passed', failureMessages: [] }]);
  }, RUN_TIMEOUT_MS);

  it('fails with permission denied when the migration lacks the GRANT, as every message would fail in AWS', async () => {
    const documented = projectSnippets().get('migrations/0001_orders.sql') ?? '';
    expect(documented).toMatch(GRANT_LINE);
    const project = await writeProject('ungranted', (text) => text.replace(GRANT_LINE, ''));
    const results = await recipeTest(project);
    // The handler's first message fails (the database set up, the handler imported), not the setup.
    expect(results).toEqual([{ title: 'ships an order once, however often its message comes', status: 'failed', failureMessages: [expect.stringMatching(/expected \{ batchItemFailures: \[ .+ \] \} to deeply equal \{ batchItemFailures: \[\] \}/)] }]);

    // Why: the role it signs in as may not touch the table, as Aurora answers in AWS.
    const scratch = await createScratchDatabase(inject('pgAdminUrl'), 'recipe_ungranted');
    const deployed = await migrateAsDeployed(scratch.url, { migrations: path.join(project, 'migrations'), roles: ROLES });
    const consumer = pgDatabase({ connectionString: deployed.roles['ship_orders']!.url });
    try {
      const denied = await consumer.query(sql`UPDATE orders SET status = 'shipped' WHERE order_id = ${sql.uuid(randomUUID())}`).then(() => undefined, (error: unknown) => error);
      expect(denied).toMatchObject({ sqlState: '42501', message: expect.stringMatching(/permission denied for table orders/) });
    } finally {
      await consumer.close();
      await scratch.drop();
    }
  }, RUN_TIMEOUT_MS);
});
