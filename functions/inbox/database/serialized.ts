/**
 * Wraps an async function so that calls run one after another in the order they were made, as one
 * transaction's connection needs (the Data API refuses a second call while one is running).
 *
 * @example
 * ```ts
 * const query = serialized((s: SqlStatement) => client.query(s));
 * await Promise.all([query(a), query(b)]); // b starts when a has settled
 * ```
 */
export function serialized<A extends unknown[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  let tail: Promise<unknown> = Promise.resolve();
  return (...args: A) => {
    const result = tail.then(() => fn(...args));
    tail = result.catch(() => undefined);
    return result;
  };
}
