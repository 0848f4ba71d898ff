import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { databaseUrl } from './database-url.js';

export interface FreshDatabase {
  url: string;
  pool: pg.Pool;
  close(): Promise<void>;
}

const NAME = /^[a-z_][a-z0-9_]{0,62}$/;

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: inject('pgAdminUrl') });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * A database of the calling test file's own, copied from the migrated template, so files run in
 * parallel without sharing state. `close()` ends the pool and drops the database.
 */
export async function freshDatabase(): Promise<FreshDatabase> {
  const name = `inbox_test_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  const template = inject('pgTemplate');
  if (!NAME.test(name) || !NAME.test(template)) throw new Error(`unexpected database name ${name} / ${template}`);
  // CREATE DATABASE ... TEMPLATE fails while another session is copying the same template.
  for (let attempt = 1; ; attempt += 1) {
    try {
      await admin((client) => client.query(`CREATE DATABASE ${name} TEMPLATE ${template}`));
      break;
    } catch (error) {
      if (attempt >= 20 || !/being accessed by other users/.test((error as Error).message)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
  const url = databaseUrl(inject('pgAdminUrl'), name);
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  return {
    url,
    pool,
    close: async () => {
      await pool.end();
      await admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}
