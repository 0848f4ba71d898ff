import type { QueryResult, Row, Transaction } from './database.js';
import { TransactionEndedError, UnawaitedQueryError } from './errors.js';
import type { SqlStatement } from '../sql/sql.js';

/**
 * Runs `work` with a transaction whose queries reach `query` only while `work` runs, the rule both
 * drivers and the kit's handler call share:
 *
 * - once `work` has returned or thrown, every query is refused with `TransactionEndedError` without
 *   running (so a late one can never run in the next transaction of a pooled connection) and
 *   `onLateQuery` is told; when it is given, the refusal is also marked handled, since it has been
 *   reported, so a late query nobody awaits does not end the process with an unhandled rejection;
 * - the queries still running when `work` settles are waited for, and when `work` had returned,
 *   the call throws `UnawaitedQueryError`: `work` did not wait for its own effect, so its caller
 *   must roll back rather than commit without it. A thrown `work` is rethrown as it came.
 *
 * @example
 * ```ts
 * const result = await withTransactionScope((statement) => run(client, statement), work);
 * await client.query('COMMIT');
 * ```
 */
export async function withTransactionScope<T>(
  query: <R>(statement: SqlStatement) => Promise<QueryResult<R>>,
  work: (tx: Transaction) => Promise<T>,
  onLateQuery?: () => void,
): Promise<T> {
  const running = new Set<Promise<unknown>>();
  let open = true;
  const tx: Transaction = {
    query: <R = Row>(statement: SqlStatement): Promise<QueryResult<R>> => {
      if (!open) {
        const refused = Promise.reject(new TransactionEndedError());
        if (onLateQuery !== undefined) {
          refused.catch(() => undefined);
          onLateQuery();
        }
        return refused;
      }
      // Each caller gets a promise of its own (`finally`): one nobody awaits still rejects
      // unhandled, unless it is still running when `work` settles and is then awaited here.
      const returned: Promise<QueryResult<R>> = query<R>(statement).finally(() => running.delete(returned));
      running.add(returned);
      return returned;
    },
  };

  let settled: { readonly returned: true; readonly value: T } | { readonly returned: false; readonly error: unknown };
  try {
    settled = { returned: true, value: await work(tx) };
  } catch (error) {
    settled = { returned: false, error };
  }
  open = false;
  const unawaited = running.size;
  await Promise.allSettled(running);
  if (!settled.returned) throw settled.error;
  if (unawaited > 0) throw new UnawaitedQueryError(unawaited);
  return settled.value;
}
