/**
 * Calls an observer or a fault hook a user gave a poller, so that one that throws cannot stop the
 * poller: its throw is dropped and `fallback` answered instead.
 *
 * @example
 * ```ts
 * const twice = quietly(() => faults.deliverTwice?.(view) ?? false, false);
 * ```
 */
export function quietly<T>(callback: () => T): T | undefined;
export function quietly<T>(callback: () => T, fallback: T): T;
export function quietly<T>(callback: () => T, fallback?: T): T | undefined {
  try {
    return callback();
  } catch {
    return fallback;
  }
}
