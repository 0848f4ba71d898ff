import pg from 'pg';

/**
 * The pool a demo run reads its database with, on a server the run restarts: a connection the
 * server drops, idle in the pool or held between queries, fails the next query instead of taking
 * the process down with an unhandled error.
 *
 * @example
 * ```ts
 * const pool = runPool(database.url, 4);
 * ```
 */
export function runPool(connectionString: string, max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString, max });
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}
