import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { sql } from '../../functions/inbox/index.js';
import { pgDatabase } from '../../functions/inbox/pg/index.js';
import { createScratchDatabase, migrateAsDeployed } from '../../local/index.js';
import { projectSnippets } from '../support/doc-snippets.js';
import { RECIPE_RUN_TIMEOUT_MS, recipeTest, writeRecipeProject } from '../support/recipe-project.js';

/** The roles the recipe's test signs in with, as lib/shop-stack.ts deploys them. */
const ROLES = { ship_orders: 'consumer', ship_orders_kafka: 'consumer' } as const;
/** The documented project's files of the handler test: the handler, its test and the migration. */
const FILES = ['src/ship-orders.ts', 'test/ship-orders.test.ts', 'migrations/0001_orders.sql'] as const;
const GRANT_LINE = /^GRANT .* TO ship_orders\b.*\n/m;

let folder: string;

/** Writes the documented project, its migration changed by `migration`, into a folder of its own. */
async function writeProject(name: string, migration: (sql: string) => string): Promise<string> {
  return writeRecipeProject(path.join(folder, name), FILES, { runnable: true, edit: (file, text) => (file.endsWith('.sql') ? migration(text) : text) });
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
  }, RECIPE_RUN_TIMEOUT_MS);

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
  }, RECIPE_RUN_TIMEOUT_MS);
});
