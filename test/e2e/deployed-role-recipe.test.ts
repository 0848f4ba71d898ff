import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { projectSnippets } from '../support/doc-snippets.js';
import { ROOT } from '../support/documentation.js';
import { entryPoints } from '../support/public-names.js';

const run = promisify(execFile);
const RUN_TIMEOUT_MS = 150_000;

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

/** Writes the documented project (its migration given by `migration`) and runs its vitest test; what vitest printed and whether it passed. */
async function recipeTest(name: string, migration: (sql: string) => string): Promise<{ passed: boolean; output: string }> {
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
  const env = { ...process.env, DATABASE_URL: inject('pgAdminUrl'), AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
  delete env['VITEST'];
  delete env['VITEST_WORKER_ID'];
  delete env['VITEST_POOL_ID'];
  try {
    const { stdout, stderr } = await run(process.execPath, [path.join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--root', project],
      { cwd: project, env, timeout: RUN_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 });
    return { passed: true, output: stdout + stderr };
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    return { passed: false, output: stdout + stderr };
  }
}

beforeAll(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), 'deployed-role-recipe-'));
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('docs/local-testing.md: the handler test signs in as the role InboxDatabase deploys', () => {
  it('passes with the documented migration, which grants the role its table', async () => {
    const { passed, output } = await recipeTest('granted', (sql) => sql);
    expect(passed, output).toBe(true);
  }, RUN_TIMEOUT_MS);

  it('fails with permission denied when the migration lacks the GRANT, as every message would fail in AWS', async () => {
    const documented = projectSnippets().get('migrations/0001_orders.sql') ?? '';
    expect(documented).toMatch(GRANT_LINE);
    const { passed, output } = await recipeTest('ungranted', (sql) => sql.replace(GRANT_LINE, ''));
    expect(passed, output).toBe(false);
    expect(output).toMatch(/permission denied for table orders/);
  }, RUN_TIMEOUT_MS);
});
