import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { migrate, pgDatabase, readMigrations } from '../../functions/inbox/index.js';
import { startPostgres } from '../../local/postgres.js';
import { databaseUrl } from './database-url.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Admin URL of the run's PostgreSQL (its `postgres` database). */
    pgAdminUrl: string;
    /** The migrated template database each test file copies. */
    pgTemplate: string;
  }
}

/**
 * Starts PostgreSQL once for the whole run (embedded, or DATABASE_URL's server) and builds a
 * migrated template database, so each test file can copy one in milliseconds. The template's name
 * is unique, so two runs against one DATABASE_URL server do not collide; teardown drops it.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startPostgres();
  // Made here, never from input: safe to paste into CREATE / DROP DATABASE.
  const template = `inbox_template_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const teardown = async () => {
    await admin(server.url, `DROP DATABASE IF EXISTS ${template} WITH (FORCE)`).catch(() => undefined);
    await server.close();
  };
  try {
    await admin(server.url, `CREATE DATABASE ${template}`);
    const db = pgDatabase({ connectionString: databaseUrl(server.url, template), max: 1 });
    try {
      await migrate(db, await readMigrations(fileURLToPath(new URL('../../migrations', import.meta.url))));
    } finally {
      await db.close();
    }
  } catch (error) {
    await teardown();
    throw error;
  }
  project.provide('pgAdminUrl', server.url);
  project.provide('pgTemplate', template);
  return teardown;
}

/** One statement on its own short-lived connection, so no idle admin connection outlives a long run. */
async function admin(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
