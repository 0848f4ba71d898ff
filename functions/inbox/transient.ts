import type { RetryPolicy } from './retry.js';
import { SqlState, sqlStateOf } from './sql/sql-state.js';

// A server out of connections (53300) frees one as soon as another call ends: worth a short wait too.
const TRANSIENT_STATES: ReadonlySet<string> = new Set([SqlState.serializationFailure, SqlState.deadlockDetected, SqlState.tooManyConnections]);
const TRANSIENT_NAMES: ReadonlySet<string> = new Set(['DatabaseResumingException']);
// The first retry's backoff ceiling, doubling with each retry.
const RETRY_BASE_MS = 100;

/**
 * Whether an error is worth retrying in place: a serialization failure, a deadlock, a server out of
 * connections, or an Aurora Serverless database that is resuming from a pause (found on the error
 * or anywhere in its causes).
 *
 * @example
 * ```ts
 * isTransient(error) // true for SQLSTATE 40001
 * ```
 */
export function isTransient(error: unknown): boolean {
  try {
    for (let current = error, depth = 0; current !== undefined && current !== null && depth < 5; depth += 1) {
      const state = sqlStateOf(current);
      if (state !== undefined && TRANSIENT_STATES.has(state)) return true;
      const name = (current as { name?: unknown }).name;
      if (typeof name === 'string' && TRANSIENT_NAMES.has(name)) return true;
      current = (current as { cause?: unknown }).cause;
    }
  } catch {
    // What user code threw may throw when read (a revoked Proxy): not a database's transient error.
  }
  return false;
}

/**
 * How one invocation retries transient errors in place: `maxRetries` times at most, with full-jitter
 * backoff, and never into the invocation's last `marginMs`.
 *
 * @example
 * ```ts
 * await retry(() => db.transaction(work), transientRetry(3, () => context.getRemainingTimeInMillis(), 5000));
 * ```
 */
export function transientRetry(maxRetries: number, remainingMs: () => number, marginMs: number): RetryPolicy {
  return {
    attempts: maxRetries + 1,
    backoff: { baseMs: RETRY_BASE_MS },
    retryable: isTransient,
    deadline: { remainingMs, marginMs },
  };
}
