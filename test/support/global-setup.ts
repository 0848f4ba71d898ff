import type { TestProject } from 'vitest/node';
import { pgDatabase } from '../../functions/inbox/pg/index.js';
import { migrateReferenceDatabase } from '../../demo/reference-database.js';
import { startPostgres } from '../../local/postgres/index.js';
import { createScratchDatabase, type ScratchDatabase } from '../../local/scratch-database.js';
import { runTemporaryFolder } from './temporary-folder.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Admin URL of the run's PostgreSQL (its `postgres` database). */
    pgAdminUrl: string;
    /** The migrated template database each test file copies. */
    pgTemplate: string;
  }
}

/**
 * Gives the run a temporary folder of its own, starts PostgreSQL once for the whole run (embedded,
 * or DATABASE_URL's server) and builds a migrated template database, so each test file can copy one
 * in milliseconds. The template's name is unique, so two runs against one DATABASE_URL server do not
 * collide; teardown drops it. Teardown then fails the run (exit code 1: vitest does not fail a run
 * for a throwing teardown) when the tests left anything in their temporary folder, naming it.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const temporary = await runTemporaryFolder();
  const server = await startPostgres().catch(async (error: unknown) => {
    await temporary.remove();
    throw error;
  });
  let template: ScratchDatabase | undefined;
  const teardown = async () => {
    await template?.drop().catch(() => undefined);
    await server.close();
    const left = await temporary.leftovers();
    await temporary.remove();
    if (left.length > 0) {
      console.error(`The tests left ${left.length} entries in the temporary folder (each test removes what it makes there): ${left.join(', ')}`);
      process.exitCode = 1;
    }
  };
  try {
    template = await createScratchDatabase(server.url, 'inbox_template');
    const db = pgDatabase({ connectionString: template.url, max: 1 });
    try {
      await migrateReferenceDatabase(db);
    } finally {
      await db.close();
    }
  } catch (error) {
    await teardown();
    throw error;
  }
  project.provide('pgAdminUrl', server.url);
  project.provide('pgTemplate', template.name);
  return teardown;
}
