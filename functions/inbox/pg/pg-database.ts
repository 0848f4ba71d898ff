import pg from 'pg';
import type { Database, QueryResult, Row, Transaction } from '../database/database.js';
import { DatabaseQueryError } from '../database/errors.js';
import { InboxConfigError } from '../errors.js';
import { serialized } from '../database/serialized.js';
import { withTransactionScope } from '../database/transaction-scope.js';
import { sqlStateOf } from '../sql/sql-state.js';
import { toPgQuery, type SqlStatement } from '../sql/sql.js';

/** What both forms of `pgDatabase`'s options may add. */
interface PgBatchOption {
  /**
   * Offer `batch` (batched statement mode, `batchStatements`): the batch's statements in one
   * transaction, one after another, with one commit instead of one a message. node-postgres does
   * not pipeline, so it takes a round trip a statement where the unbatched records run `concurrency`
   * at once: slower on a local server (bench:data-api), worth it only where commits are dear.
   * @default false
   */
  readonly batch?: boolean;
}

/** Options of `pgDatabase`: a connection string (the driver makes and ends its pool) or a pool of yours. */
export type PgDatabaseOptions = PgBatchOption & (
  | {
      /** A PostgreSQL URL, for example `postgres://user@127.0.0.1:5432/app`. */
      readonly connectionString: string;
      /**
       * Connections in the pool the driver makes. Keep it at or above the inbox `concurrency`.
       * @default 10
       */
      readonly max?: number;
    }
  | {
      /** A pool you own; `close()` leaves it open. */
      readonly pool: pg.Pool;
    });

const DEFAULT_POOL_SIZE = 10;

async function run<R>(client: pg.Pool | pg.PoolClient, statement: SqlStatement): Promise<QueryResult<R>> {
  const { text, values } = toPgQuery(statement);
  try {
    const result = await client.query(text, values);
    return { rows: result.rows as R[], rowCount: result.rowCount ?? result.rows.length };
  } catch (error) {
    throw new DatabaseQueryError((error as Error).message, sqlStateOf(error), { cause: error });
  }
}

/**
 * A `Database` on node-postgres, for tests, local runs and servers reached over TCP. A transaction
 * runs on a dedicated client, is rolled back on any error, and the client is released even when the
 * rollback fails (it is then destroyed rather than returned to the pool). Its queries reach the
 * client only while the callback runs: one issued after it returned is refused with
 * `TransactionEndedError` (it never runs in the next transaction of the pooled client), and one
 * still running when it returned makes the transaction roll back with `UnawaitedQueryError`.
 *
 * @example
 * ```ts
 * const db = pgDatabase({ connectionString: 'postgres://postgres@127.0.0.1:5432/test' });
 * export const handler = middy().use(inbox({ consumer: 'orders', db, handle }));
 * ```
 */
export function pgDatabase(options: PgDatabaseOptions): Database {
  const { pool, owned } = poolOf(options);
  const db: Database = {
    query: <R = Row>(statement: SqlStatement) => run<R>(pool, statement),
    transaction: (work) => inTransaction(pool, work),
    async close(): Promise<void> {
      if (owned) await pool.end();
    },
  };
  // One transaction on one client, a statement at a time: one commit for the batch instead of one a statement.
  if (options.batch === true) {
    db.batch = async (statements) => {
      await db.transaction(async (tx) => {
        for (const statement of statements) await tx.query(statement);
      });
    };
  }
  return db;
}

/** The pool given, or one made from the connection string (then the database owns it and closes it). */
function poolOf(options: PgDatabaseOptions): { pool: pg.Pool; owned: boolean } {
  if ('pool' in options) return { pool: options.pool, owned: false };
  if (typeof options.connectionString !== 'string' || options.connectionString === '') {
    throw new InboxConfigError('pgDatabase needs a connectionString or a pool.');
  }
  const pool = new pg.Pool({ connectionString: options.connectionString, max: options.max ?? DEFAULT_POOL_SIZE });
  // An idle client that the server drops must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  return { pool, owned: true };
}

async function inTransaction<T>(pool: pg.Pool, work: (tx: Transaction) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  // A connection the server ends under the transaction (a restart, an idle-in-transaction
  // timeout) must not crash the process: the transaction's next query fails instead.
  const onError = () => undefined;
  client.on('error', onError);
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const query = serialized((statement: SqlStatement) => run(client, statement)) as Transaction['query'];
    try {
      const result = await withTransactionScope(query, work);
      await commit(client);
      return result;
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch (rollbackError) {
        broken = rollbackError as Error;
      }
      throw error;
    }
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}

async function commit(client: pg.PoolClient): Promise<void> {
  // COMMIT of a transaction with a failed statement (its error caught by the handler) rolls back
  // without an error; reporting that as committed would acknowledge a message whose claim is gone.
  const ended = await client.query('COMMIT');
  if (ended.command === 'ROLLBACK') {
    throw new DatabaseQueryError('The transaction was not committed: one of its statements failed (the handler caught the error).', '25P02');
  }
}
