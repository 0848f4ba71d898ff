import type { Database, SqlStatement } from '../../functions/inbox/index.js';

/** What the fault injector did. */
export interface FaultCounts {
  beforeCommit: number;
  afterCommit: number;
}

/** A fault that looks like the worker dying: the call's result never reaches the handler. */
export class InjectedCrashError extends Error {
  public constructor(when: 'before' | 'after') {
    super(`injected crash ${when} commit`);
    this.name = 'InjectedCrashError';
  }
}

/**
 * Wraps a Database so that a share of autocommitted statements (statement mode's one call a
 * message) die before they reach the server, or after they committed and before the answer
 * arrives: the second is the crash that a separate idempotency store cannot survive.
 *
 * @example
 * ```ts
 * const { db, faults } = faultyDatabase(pgDatabase({ connectionString }), 0.05, Math.random);
 * ```
 */
export function faultyDatabase(inner: Database, rate: number, random: () => number): { db: Database; faults: FaultCounts } {
  const faults: FaultCounts = { beforeCommit: 0, afterCommit: 0 };
  return {
    faults,
    db: {
      query: (async (statement: SqlStatement) => {
        const roll = random();
        if (roll < rate / 2) {
          faults.beforeCommit += 1;
          throw new InjectedCrashError('before');
        }
        const result = await inner.query(statement);
        if (roll < rate) {
          faults.afterCommit += 1;
          throw new InjectedCrashError('after');
        }
        return result;
      }) as Database['query'],
      transaction: (work) => inner.transaction(work),
      close: () => inner.close(),
    },
  };
}
