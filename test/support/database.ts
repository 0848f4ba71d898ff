import pg from 'pg';
import { inject } from 'vitest';
import { pgDatabase } from '../../functions/inbox/pg/index.js';
import { migrateReferenceDatabase } from '../../demo/reference-database.js';
import { startPostgres } from '../../local/postgres/index.js';
import { createScratchDatabase } from '../../local/scratch-database.js';

/** A database of a test's own: its URL, a direct pg pool on it for arranging and checking, and its removal. */
export interface FreshDatabase {
  url: string;
  pool: pg.Pool;
  /** Ends the pool and drops the database. */
  close(): Promise<void>;
}

async function createDatabase(prefix: string, template: string, serverUrl: string = inject('pgAdminUrl')): Promise<FreshDatabase> {
  const scratch = await createScratchDatabase(serverUrl, prefix, { template });
  const pool = new pg.Pool({ connectionString: scratch.url, max: 4 });
  // A connection the server drops (DROP ... WITH (FORCE)) must not crash the test process.
  pool.on('error', () => undefined);
  return {
    url: scratch.url,
    pool,
    close: async () => {
      await pool.end();
      await scratch.drop();
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

/**
 * A database on an embedded server of the test's own, whatever DATABASE_URL says, for tests of
 * password authentication: a server with a trust rule (as the machine's may have) accepts any
 * password. Migrated unless `empty`; `close()` drops it and stops the server.
 *
 * @example
 * ```ts
 * const own = await passwordCheckingDatabase();
 * await startDataApi({ databaseUrl: own.url, secrets });
 * await own.close();
 * ```
 */
export async function passwordCheckingDatabase(options: { readonly empty?: boolean } = {}): Promise<FreshDatabase> {
  const server = await startPostgres({ databaseUrl: '' });
  try {
    const database = await createDatabase('inbox_auth', 'template0', server.url);
    if (!options.empty) {
      await migrateReferenceDatabase(pgDatabase({ pool: database.pool }));
    }
    return {
      ...database,
      close: async () => {
        await database.close();
        await server.close();
      },
    };
  } catch (error) {
    await server.close();
    throw error;
  }
}
