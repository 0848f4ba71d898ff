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
 * out, waiting with exponential backoff in between. The kit's one retry loop for single calls:
 * transient database errors in place, a resuming Aurora cluster, the emulators' waits. Batch calls
 * whose entries fail one by one (the producer, the outbox's publishers) go through `retryEntries`.
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

/** What a batch call answered for one of its entries. */
export type EntryAnswer<D, F> =
  | { readonly kind: 'done'; readonly value: D }
  | { readonly kind: 'retry'; readonly failure: F }
  | { readonly kind: 'failed'; readonly failure: F };

/** How `retryEntries` tries the entries a batch call did not take. */
export interface EntryRetryPolicy {
  /** Calls in all that carry an entry, the first included. */
  readonly attempts: number;
  readonly backoff: Backoff;
  /**
   * No retry is started when its wait would leave less than `marginMs` of `remainingMs()`.
   * @default no deadline
   */
  readonly deadline?: { readonly remainingMs: () => number; readonly marginMs: number };
}

/** What became of every entry: taken, refused for good, or still failing when the tries or the time ran out. */
export interface EntryResults<E, D, F> {
  readonly done: { readonly entry: E; readonly value: D; readonly attempts: number }[];
  readonly failed: { readonly entry: E; readonly failure: F; readonly attempts: number }[];
  readonly left: { readonly entry: E; readonly failure: F; readonly attempts: number }[];
}

/**
 * The retry loop of batch calls that answer entry by entry (SQS SendMessageBatch, SNS PublishBatch,
 * EventBridge PutEvents): `call` is made with the entries, then again with only those it answered
 * `retry` for, in their order, with backoff between calls, until none is left or the attempts or
 * the deadline run out. `call` answers every entry it was given, in order, and does not throw (a
 * call that failed as a whole answers each of its entries alike).
 *
 * @example
 * ```ts
 * const { done, failed, left } = await retryEntries(entries, (batch) => publish(batch), { attempts: 4, backoff: { baseMs: 50, maxMs: 2000 } });
 * ```
 */
export async function retryEntries<E, D, F>(
  entries: readonly E[],
  call: (entries: readonly E[]) => Promise<readonly EntryAnswer<D, F>[]>,
  policy: EntryRetryPolicy,
): Promise<EntryResults<E, D, F>> {
  const results: EntryResults<E, D, F> = { done: [], failed: [], left: [] };
  let pending = [...entries];
  for (let attempt = 1; pending.length > 0; attempt += 1) {
    const answers = await call(pending);
    if (answers.length !== pending.length) throw new RangeError(`a batch call answered ${answers.length} entries of ${pending.length}: it must answer each one.`);
    const again: { entry: E; failure: F }[] = [];
    pending.forEach((entry, i) => {
      const answer = answers[i];
      if (answer?.kind === 'done') results.done.push({ entry, value: answer.value, attempts: attempt });
      else if (answer?.kind === 'failed') results.failed.push({ entry, failure: answer.failure, attempts: attempt });
      else if (answer !== undefined) again.push({ entry, failure: answer.failure });
    });
    if (again.length === 0) break;
    const delay = backoffDelay(attempt, policy.backoff);
    const outOfTime = policy.deadline !== undefined && policy.deadline.remainingMs() - delay < policy.deadline.marginMs;
    if (attempt >= policy.attempts || outOfTime) {
      results.left.push(...again.map(({ entry, failure }) => ({ entry, failure, attempts: attempt })));
      break;
    }
    await sleep(delay);
    pending = again.map(({ entry }) => entry);
  }
  return results;
}
