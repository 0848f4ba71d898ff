/** How the wait before each retry grows. */
export interface Backoff {
  /** The wait before the first retry, in milliseconds; it doubles with each further retry. */
  readonly baseMs: number;
  /**
   * The longest single wait.
   * @default no cap
   */
  readonly maxMs?: number;
  /**
   * `full`: anywhere from 0 to the wait; `equal`: from half the wait to all of it; `none`: the wait.
   * @default 'full'
   */
  readonly jitter?: 'full' | 'equal' | 'none';
}

/** When `retry` tries again, and for how long. */
export interface RetryPolicy {
  /** Tries in all, the first included; `Infinity` leaves the bound to `deadline`. */
  readonly attempts: number;
  readonly backoff: Backoff;
  /** Whether an error is worth another try; any other error is thrown at once. */
  readonly retryable: (error: unknown) => boolean;
  /**
   * No retry is started when its wait would leave less than `marginMs` of `remainingMs()`.
   * @default no deadline
   */
  readonly deadline?: { readonly remainingMs: () => number; readonly marginMs: number };
  /**
   * What to throw when the tries or the time run out, instead of the last error.
   * @default the last error as it came
   */
  readonly exhausted?: (error: unknown, tries: { readonly attempts: number; readonly waitedMs: number }) => unknown;
}

/**
 * Waits `ms` milliseconds.
 *
 * @example
 * ```ts
 * await sleep(250);
 * ```
 */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The wait before retry number `retry` (1 for the first): `baseMs * 2^(retry - 1)`, capped at
 * `maxMs`, with the jitter asked for.
 *
 * @example
 * ```ts
 * backoffDelay(3, { baseMs: 100, jitter: 'none' }) // 400
 * ```
 */
export function backoffDelay(retry: number, backoff: Backoff, random: () => number = Math.random): number {
  const ceiling = Math.min(backoff.maxMs ?? Number.POSITIVE_INFINITY, backoff.baseMs * 2 ** (retry - 1));
  switch (backoff.jitter ?? 'full') {
    case 'none':
      return ceiling;
    case 'equal':
      return Math.round(ceiling * (0.5 + random() / 2));
    default:
      return Math.round(ceiling * random());
  }
}

/**
 * Runs `attempt` until it succeeds, an error is not `retryable`, or the tries or the deadline run
 * out, waiting with exponential backoff in between. The kit's one retry loop: transient database
 * errors in place, a resuming Aurora cluster, the emulators' waits; the producer, whose retries are
 * partial (only a batch's failed entries go again), paces its own loop with `backoffDelay` and `sleep`.
 *
 * @example
 * ```ts
 * const rows = await retry(() => db.query(statement), {
 *   attempts: 4,
 *   backoff: { baseMs: 50 },
 *   retryable: isTransient,
 *   deadline: { remainingMs: () => context.getRemainingTimeInMillis(), marginMs: 5000 },
 * });
 * ```
 */
export async function retry<T>(attempt: (tryNumber: number) => Promise<T>, policy: RetryPolicy): Promise<T> {
  let waitedMs = 0;
  for (let tryNumber = 1; ; tryNumber += 1) {
    try {
      return await attempt(tryNumber);
    } catch (error) {
      if (!policy.retryable(error)) throw error;
      const delay = backoffDelay(tryNumber, policy.backoff);
      const outOfTime = policy.deadline !== undefined && policy.deadline.remainingMs() - delay < policy.deadline.marginMs;
      if (tryNumber >= policy.attempts || outOfTime) {
        throw policy.exhausted ? policy.exhausted(error, { attempts: tryNumber, waitedMs }) : error;
      }
      waitedMs += delay;
      await sleep(delay);
    }
  }
}
