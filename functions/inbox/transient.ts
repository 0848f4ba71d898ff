import { SqlState, sqlStateOf } from './sql-state.js';

const TRANSIENT_STATES: ReadonlySet<string> = new Set([SqlState.serializationFailure, SqlState.deadlockDetected]);
const TRANSIENT_NAMES: ReadonlySet<string> = new Set(['DatabaseResumingException']);

/**
 * Whether an error is worth retrying in place: a serialization failure, a deadlock, or an Aurora
 * Serverless database that is resuming from a pause (found on the error or anywhere in its causes).
 *
 * @example
 * ```ts
 * isTransient(error) // true for SQLSTATE 40001
 * ```
 */
export function isTransient(error: unknown): boolean {
  for (let current = error, depth = 0; current !== undefined && current !== null && depth < 5; depth += 1) {
    const state = sqlStateOf(current);
    if (state !== undefined && TRANSIENT_STATES.has(state)) return true;
    const name = (current as { name?: unknown }).name;
    if (typeof name === 'string' && TRANSIENT_NAMES.has(name)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** How retries in place are paced and bounded. */
export interface RetryPolicy {
  readonly maxRetries: number;
  readonly baseMs: number;
  /** Milliseconds left in the invocation. */
  readonly remainingMs: () => number;
  /** A retry is not started when less than this would be left after its wait. */
  readonly marginMs: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `attempt`, retrying transient errors with full-jitter exponential backoff while retries and
 * time allow; any other error, or the last transient one, is thrown.
 *
 * @example
 * ```ts
 * await withRetries(() => db.transaction(work), { maxRetries: 3, baseMs: 50, remainingMs: () => context.getRemainingTimeInMillis(), marginMs: 5000 });
 * ```
 */
export async function withRetries<T>(attempt: () => Promise<T>, policy: RetryPolicy): Promise<T> {
  for (let retry = 0; ; retry += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (!isTransient(error) || retry >= policy.maxRetries) throw error;
      const delay = Math.round(Math.random() * policy.baseMs * 2 ** (retry + 1));
      if (policy.remainingMs() - delay < policy.marginMs) throw error;
      await sleep(delay);
    }
  }
}
