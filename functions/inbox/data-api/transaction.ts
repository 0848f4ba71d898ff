import type { QueryResult, Row, Transaction } from '../database/database.js';
import { DatabaseQueryError, TransactionEndedError } from '../database/errors.js';
import { serialized } from '../database/serialized.js';
import { withTransactionScope } from '../database/transaction-scope.js';
import type { SqlStatement } from '../sql/sql.js';
import { translateServiceError } from './service-errors.js';

/** The calls a Data API transaction makes, given its id: one set per database, not per transaction. */
export interface TransactionCalls {
  readonly execute: <R>(statement: SqlStatement, transactionId: string) => Promise<QueryResult<R>>;
  readonly commit: (transactionId: string) => Promise<unknown>;
  readonly rollback: (transactionId: string) => Promise<unknown>;
}

/**
 * Runs `work` on a begun Data API transaction and commits it, or rolls it back on any error.
 * Every call goes through one queue (the service refuses a second call while one runs), so a
 * handler may fire `tx.query` calls in parallel. Once the service says it no longer has the
 * transaction, nothing more is sent on it. After a failed statement the service has normally rolled
 * back already; the rollback is still sent and a "not found" answer ignored, because a transaction
 * left open would hold the claim's row locks for 3 minutes. A later `tx.query` after a failed
 * statement is refused without a call (SQLSTATE 25P02, as on PostgreSQL), and so is the commit.
 * As on the pg driver (`withTransactionScope`), a query issued after `work` returned is refused
 * with `TransactionEndedError` without a call, and one still running then rolls the transaction back.
 *
 * @example
 * ```ts
 * const result = await inTransaction(id, calls, async (tx) => tx.query(sql`SELECT 1`));
 * ```
 */
export async function inTransaction<T>(id: string, calls: TransactionCalls, work: (tx: Transaction) => Promise<T>): Promise<T> {
  const inTurn = serialized((call: () => Promise<unknown>) => call());
  let gone = false;
  let failed: unknown;
  const onTransaction = async <V>(call: () => Promise<V>): Promise<V> => {
    try {
      return await call();
    } catch (error) {
      const translated = translateServiceError(error, id);
      if (translated instanceof TransactionEndedError) gone = true;
      throw translated;
    }
  };

  const query: Transaction['query'] = <R = Row>(statement: SqlStatement) => inTurn(async () => {
    if (gone) throw new TransactionEndedError(id);
    if (failed !== undefined) {
      throw new DatabaseQueryError('current transaction is aborted: an earlier statement of it failed, so it can only be rolled back.', '25P02', { cause: failed });
    }
    try {
      return await onTransaction(() => calls.execute<R>(statement, id));
    } catch (error) {
      failed = error;
      throw error;
    }
  }) as Promise<QueryResult<R>>;

  try {
    const result = await withTransactionScope(query, work);
    await inTurn(async () => {
      if (gone) throw new TransactionEndedError(id);
      // A handler that swallowed a statement's error must not see its work reported committed.
      if (failed !== undefined) {
        throw new DatabaseQueryError('The transaction was not committed: one of its statements failed (the handler caught the error).', '25P02', { cause: failed });
      }
      await onTransaction(() => calls.commit(id));
    });
    return result;
  } catch (error) {
    if (!gone) await inTurn(() => calls.rollback(id)).catch(() => undefined);
    throw error;
  }
}
