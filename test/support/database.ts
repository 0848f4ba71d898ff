import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { databaseUrl } from './database-url.js';

/** A database of a test's own: its URL, a direct pg pool on it for arranging and checking, and its removal. */
export interface FreshDatabase {
  url: string;
  pool: pg.Pool;
  /** Ends the pool and drops the database. */
  close(): Promise<void>;
}

// Database names are made here, never taken from input; the check guards the text they are pasted into.
const NAME = /^[a-z_][a-z0-9_]{0,62}$/;

function checkedName(name: string): string {
  if (!NAME.test(name)) throw new Error(`refusing database name "${name}": expected ${String(NAME)}`);
  return name;
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: inject('pgAdminUrl') });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function createDatabase(prefix: string, template: string): Promise<FreshDatabase> {
  const name = checkedName(`${prefix}_${randomUUID().replaceAll('-', '').slice(0, 16)}`);
  const source = checkedName(template);
  // CREATE DATABASE ... TEMPLATE fails while another session is copying the same template.
  for (let attempt = 1; ; attempt += 1) {
    try {
      await admin((client) => client.query(`CREATE DATABASE ${name} TEMPLATE ${source}`));
      break;
    } catch (error) {
      if (attempt >= 20 || !/being accessed by other users/.test((error as Error).message)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
  const url = databaseUrl(inject('pgAdminUrl'), name);
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  // A connection the server drops (DROP ... WITH (FORCE)) must not crash the test process.
  pool.on('error', () => undefined);
  return {
    url,
    pool,
    close: async () => {
      await pool.end();
      await admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/**
 * A database of the calling test file's own, copied from the migrated template, so files run in
 * parallel without sharing state. `close()` ends the pool and drops the database.
 *
 * @example
 * ```ts
 * const fresh = await freshDatabase();
 * await fresh.pool.query('SELECT count(*) FROM consumed_message');
 * await fresh.close();
 * ```
 */
export function freshDatabase(): Promise<FreshDatabase> {
  return createDatabase('inbox_test', inject('pgTemplate'));
}

/**
 * A database with no table at all (copied from template0), for tests that start from nothing,
 * such as the migration runner's.
 *
 * @example
 * ```ts
 * const empty = await emptyDatabase();
 * await migrate(pgDatabase({ connectionString: empty.url }), migrations);
 * ```
 */
export function emptyDatabase(): Promise<FreshDatabase> {
  return createDatabase('inbox_empty', 'template0');
}
