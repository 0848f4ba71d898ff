import { DEFAULTS } from '../options.js';
import type { KeyFallback } from '../outcome.js';
import { InvalidKeyError } from './errors.js';
import type { DefaultKey } from './record-source.js';
import { describeThrown } from './thrown-value.js';

/** A record's key, or why it has none. */
export type KeyResult =
  | { readonly ok: true; readonly key: string; readonly fallback?: KeyFallback }
  | { readonly ok: false; readonly error: InvalidKeyError };

function checked(value: unknown, fallback: KeyFallback | undefined): KeyResult {
  if (typeof value !== 'string') return { ok: false, error: new InvalidKeyError(`the key function returned ${typeof value}, not a string`) };
  if (value === '') return { ok: false, error: new InvalidKeyError('the key is empty') };
  // PostgreSQL text cannot hold U+0000: such a key would fail its claim on every delivery.
  if (value.includes('\u0000')) return { ok: false, error: new InvalidKeyError('the key holds a NUL character, which PostgreSQL text cannot store') };
  if (value.length > DEFAULTS.maxKeyLength) {
    return { ok: false, error: new InvalidKeyError(`the key has ${value.length} characters, over the ${DEFAULTS.maxKeyLength} allowed`) };
  }
  return fallback === undefined ? { ok: true, key: value } : { ok: true, key: value, fallback };
}

/**
 * The key of a record: the user's `key` function when given, else the source's default, checked:
 * a throw, a non-string, an empty string or one longer than 512 characters is an `InvalidKeyError`.
 *
 * @example
 * ```ts
 * const result = keyOf(record, undefined, sqsSource.defaultKey);
 * if (!result.ok) console.warn(result.error.message);
 * ```
 */
export function keyOf<R>(record: R, key: ((record: R) => string) | undefined, defaultKey: (record: R) => DefaultKey): KeyResult {
  try {
    if (key !== undefined) return checked(key(record), undefined);
    const found = defaultKey(record);
    return checked(found.key, found.fallback);
  } catch (error) {
    const what = key !== undefined ? 'the key function threw' : 'reading the default key threw';
    return { ok: false, error: new InvalidKeyError(`${what} ${describeThrown(error)}`) };
  }
}
