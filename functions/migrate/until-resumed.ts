/** How long to keep knocking on a paused Aurora Serverless v2 database. */
export interface ResumePolicy {
  /** Milliseconds left in the invocation. */
  readonly remainingMs: () => number;
  /** Stop retrying when less than this would be left after the next wait. */
  readonly marginMs: number;
  /** Wait between attempts. */
  readonly waitMs: number;
}

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
  for (let current = error, depth = 0; current !== null && typeof current === 'object' && depth < 5; depth += 1) {
    const name = (current as { name?: unknown }).name;
    if (typeof name === 'string' && RESUMING.has(name)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `attempt` again while the database is resuming and time allows. Every other error, and
 * the last resuming one, is thrown as it came. A deploy is often the first call after a pause, so
 * the migrations wait the ~15 s a resume takes instead of failing the deploy.
 *
 * @example
 * ```ts
 * await untilResumed(() => migrate(db, migrations), { remainingMs: () => context.getRemainingTimeInMillis(), marginMs: 10_000, waitMs: 5_000 });
 * ```
 */
export async function untilResumed<T>(attempt: () => Promise<T>, policy: ResumePolicy): Promise<T> {
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (!isResuming(error) || policy.remainingMs() - policy.waitMs < policy.marginMs) throw error;
      await sleep(policy.waitMs);
    }
  }
}
