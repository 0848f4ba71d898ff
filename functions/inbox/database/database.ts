import type { SqlStatement } from '../sql/sql.js';

/** A row as the drivers return it: column name to value. */
export type Row = Record<string, unknown>;

/** What a statement returned: its rows, and how many rows it returned or changed. */
export interface QueryResult<R = Row> {
  rows: R[];
  rowCount: number;
}

/**
 * An open transaction. Calls are serialized by the kit, so a handler may issue them in parallel,
 * as long as it awaits them: the transaction serves queries only while its callback runs (a later
 * one is refused with `TransactionEndedError`, one still running when the callback returns rolls
 * it back with `UnawaitedQueryError`).
 *
 * @example
 * ```ts
 * handle: async (order, { tx }) => {
 *   await tx.query(sql`UPDATE orders SET status = 'paid' WHERE order_id = ${sql.uuid(order.id)}`);
 * }
 * ```
 */
export interface Transaction {
  query<R = Row>(statement: SqlStatement): Promise<QueryResult<R>>;
}

/**
 * A database the kit can claim messages in: `pgDatabase(...)` or `dataApiDatabase(...)`.
 *
 * @example
 * ```ts
 * const db = pgDatabase({ connectionString: process.env.DATABASE_URL! });
 * const total = await db.transaction(async (tx) => (await tx.query(sql`SELECT count(*) AS n FROM orders`)).rows[0]);
 * await db.close();
 * ```
 */
export interface Database {
  /** One statement, autocommitted. */
  query<R = Row>(statement: SqlStatement): Promise<QueryResult<R>>;
  /** Runs `work` in a transaction: commits when it returns (with none of its queries still running), rolls back when it throws. */
  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T>;
  /**
   * Runs `statements` in order in one transaction and commits, or rolls back and throws the first
   * failure: all of them commit or none. Nothing is answered per statement (the Data API's
   * BatchExecuteStatement returns no rows on Aurora PostgreSQL). The Data API driver sends each run
   * of statements that share one text as one BatchExecuteStatement, so a batch of one text costs
   * three calls (BeginTransaction, BatchExecuteStatement, CommitTransaction) whatever its width.
   * Optional: a `Database` without it is used one statement at a time.
   */
  batch?(statements: readonly SqlStatement[]): Promise<void>;
  /** Releases what the driver opened. */
  close(): Promise<void>;
}
