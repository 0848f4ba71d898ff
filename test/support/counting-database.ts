import type { Database } from '../../functions/inbox/index.js';

/** A Database that counts the statements it is asked to run, on its own or inside a transaction. */
export interface CountingDatabase {
  db: Database;
  /** Statements run so far. */
  calls(): number;
  /** Transactions begun so far. */
  transactions(): number;
}

/**
 * Wraps `db` so a test can tell how many round trips the kit made, or that it made none.
 *
 * @example
 * ```ts
 * const counted = countingDatabase(fx.db);
 * await processKafkaBatch(event, lambdaContext(), { ...options, db: counted.db });
 * expect(counted.calls()).toBe(3);
 * ```
 */
export function countingDatabase(db: Database): CountingDatabase {
  let calls = 0;
  let transactions = 0;
  return {
    calls: () => calls,
    transactions: () => transactions,
    db: {
      query: (statement) => { calls += 1; return db.query(statement); },
      transaction: (work) => {
        transactions += 1;
        return db.transaction((tx) => work({ query: (statement) => { calls += 1; return tx.query(statement); } }));
      },
      close: () => db.close(),
    },
  };
}
