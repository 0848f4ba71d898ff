import { retry } from '../retry.js';
import { withDefaults } from '../with-defaults.js';

/** How long to keep knocking on a paused Aurora Serverless v2 database. */
export interface ResumeWait {
  /** Milliseconds left in the invocation. */
  readonly remainingMs: () => number;
  /**
   * Stop when less than this would be left after the next wait.
   * @default 10000
   */
  readonly marginMs?: number;
  /**
   * Wait between attempts.
   * @default 5000
   */
  readonly waitMs?: number;
}

const RESUME_WAIT_DEFAULTS = { marginMs: 10_000, waitMs: 5_000 } as const;

// The service's exception, and the driver's error once its own short wait is used up.
const RESUMING: ReadonlySet<string> = new Set(['DatabaseResumingException', 'DataApiResumingError']);

/**
 * Whether the error (or one of its causes) says the database is resuming from a pause at 0 ACU:
 * the Data API refuses calls for some seconds then, the SDK does not retry it, and the driver's
 * own wait (a few seconds) can run out before a resume is done.
 *
 * @example
 * ```ts
 * isResuming(Object.assign(new Error('resuming'), { name: 'DatabaseResumingException' })) // true
 * ```
 */
export function isResuming(error: unknown): boolean {
  try {
    for (let current = error, depth = 0; current !== null && typeof current === 'object' && depth < 5; depth += 1) {
      const name = (current as { name?: unknown }).name;
      if (typeof name === 'string' && RESUMING.has(name)) return true;
      current = (current as { cause?: unknown }).cause;
    }
  } catch {
    // A value that throws when read (a revoked Proxy) says nothing of a resume.
  }
  return false;
}

/**
 * Runs `attempt` again while the database is resuming and the invocation has time, for a job that
 * is often the first caller after a pause (migrations on deploy, the scheduled cleanup): a resume
 * takes about 15 s, longer than the driver's own wait. Every other error, and the last resuming
 * one, is thrown as it came.
 *
 * @example
 * ```ts
 * import { untilResumed } from 'sqs-inbox/data-api';
 * await untilResumed(() => migrate(db, migrations), { remainingMs: () => context.getRemainingTimeInMillis() });
 * ```
 */
export function untilResumed<T>(attempt: () => Promise<T>, wait: ResumeWait): Promise<T> {
  const { marginMs, waitMs } = withDefaults(RESUME_WAIT_DEFAULTS, wait);
  return retry(attempt, {
    attempts: Number.POSITIVE_INFINITY,
    backoff: { baseMs: waitMs, maxMs: waitMs, jitter: 'none' },
    retryable: isResuming,
    deadline: { remainingMs: wait.remainingMs, marginMs },
  });
}
