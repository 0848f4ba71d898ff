import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { migrate, pgDatabase, readMigrations } from '../../functions/inbox/index.js';
import { startPostgres } from '../../local/postgres.js';
import { databaseUrl } from './database-url.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
    pgTemplate: string;
  }
}

/**
 * Starts PostgreSQL once for the whole run (embedded, or DATABASE_URL's server) and builds a
 * migrated template database, so each test file can copy one in milliseconds.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startPostgres();
  const template = `inbox_template_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${template}`);
  const db = pgDatabase({ connectionString: databaseUrl(server.url, template), max: 1 });
  try {
    await migrate(db, await readMigrations(fileURLToPath(new URL('../../migrations', import.meta.url))));
  } finally {
    await db.close();
  }
  project.provide('pgAdminUrl', server.url);
  project.provide('pgTemplate', template);
  return async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
    await admin.end();
    await server.close();
  };
}
