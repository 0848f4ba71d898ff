import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { retry } from '../functions/inbox/internal.js';
import { LocalConfigError } from './errors.js';

/** Options of `createScratchDatabase`. */
export interface ScratchDatabaseOptions {
  /**
   * The database to copy, for example a migrated template.
   * @default none: CREATE DATABASE's own (template1)
   */
  readonly template?: string;
}

/** A database of its own on a server, and its removal. */
export interface ScratchDatabase {
  readonly name: string;
  /** The server's URL on this database. */
  readonly url: string;
  /** Drops the database, ending whatever sessions are still on it. */
  drop(): Promise<void>;
}

// Database names are made here or by the caller's code, never taken from input; the check guards the
// text they are pasted into, since CREATE / DROP DATABASE take no bound parameters.
const NAME = /^[a-z_][a-z0-9_]{0,62}$/;
const COPY_ATTEMPTS = 20;

function checkedName(name: string): string {
  if (!NAME.test(name)) throw new LocalConfigError(`A scratch database name is a lowercase letter or _ followed by at most 62 lowercase letters, digits or _, but "${name}" was given.`);
  return name;
}

/**
 * The server's URL on another database.
 *
 * @example
 * ```ts
 * databaseUrl('postgres://postgres@127.0.0.1:5432/postgres', 'app') // 'postgres://postgres@127.0.0.1:5432/app'
 * ```
 */
export function databaseUrl(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

// One statement on its own short-lived connection, so no idle admin connection outlives a long run.
async function admin(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  // A server that ends the session (a restart) must not take the process down: the call fails instead.
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * Creates a database named `<prefix>_<16 random hex digits>` on the server of `serverUrl` (an admin
 * URL), empty or copied from `template`, so runs and test files never share state. A copy is tried
 * again while another session is copying the same template, which PostgreSQL refuses.
 *
 * @example
 * ```ts
 * const scratch = await createScratchDatabase(server.url, 'bench');
 * await migrate(pgDatabase({ connectionString: scratch.url }), migrations);
 * await scratch.drop();
 * ```
 */
export async function createScratchDatabase(serverUrl: string, prefix: string, options: ScratchDatabaseOptions = {}): Promise<ScratchDatabase> {
  const name = checkedName(`${prefix}_${randomUUID().replaceAll('-', '').slice(0, 16)}`);
  const template = options.template === undefined ? '' : ` TEMPLATE ${checkedName(options.template)}`;
  await retry(() => admin(serverUrl, `CREATE DATABASE ${name}${template}`), {
    attempts: COPY_ATTEMPTS,
    backoff: { baseMs: 50, maxMs: 1000, jitter: 'equal' },
    retryable: (error) => /being accessed by other users/.test((error as Error).message),
  });
  return {
    name,
    url: databaseUrl(serverUrl, name),
    drop: () => admin(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}
