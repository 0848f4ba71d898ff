import { sleep } from '../functions/inbox/internal.js';

/** Options of `waitUntil`. */
export interface WaitUntilOptions<T> {
  /** How long the wait may take; then it throws what `timedOut` makes of the last state read. */
  readonly timeoutMs: number;
  /**
   * How long to sleep between two reads.
   * @default 250
   */
  readonly intervalMs?: number;
  /** The error to throw when `timeoutMs` runs out, saying what was still left. */
  readonly timedOut: (last: T) => Error;
}

/**
 * The demo's one polling loop: reads a state, returns it once `done` says so, sleeps
 * `intervalMs` between reads, and throws `timedOut(last state)` once `timeoutMs` has passed
 * (a read after the deadline still gets its chance to be done).
 *
 * @example
 * ```ts
 * await waitUntil(() => queueDepth(client, queueUrl), queueIsEmpty, {
 *   timeoutMs: 60_000,
 *   timedOut: (depth) => new Error(`${depth.visible} messages left`),
 * });
 * ```
 */
export async function waitUntil<T>(read: () => Promise<T> | T, done: (state: T) => boolean, options: WaitUntilOptions<T>): Promise<T> {
  const deadline = performance.now() + options.timeoutMs;
  for (;;) {
    const state = await read();
    if (done(state)) return state;
    if (performance.now() > deadline) throw options.timedOut(state);
    await sleep(options.intervalMs ?? 250);
  }
}
