// What is said of a thrown value none of whose text can be read (a revoked Proxy, say).
const UNREADABLE = 'a thrown value whose text cannot be read';

/** A field of a thrown object: its text when it is a string, or whether reading it threw. */
function textField(value: object, field: 'name' | 'message'): { readonly text?: string; readonly threw: boolean } {
  try {
    const text = (value as Record<string, unknown>)[field];
    return typeof text === 'string' ? { text, threw: false } : { threw: false };
  } catch {
    return { threw: true };
  }
}

/** `String(value)`, or `[object Object]` for an object without a prototype; undefined when neither can be had. */
function plainText(value: object): string | undefined {
  try {
    return String(value);
  } catch {
    try {
      return Object.prototype.toString.call(value);
    } catch {
      return undefined;
    }
  }
}

/**
 * The text of whatever user code threw, for a rejected message's reason and the kit's own errors:
 * `Name: message` for an error (or anything with a string `message`), else `String(value)`. Never
 * throws, whatever was thrown: an object without a prototype, a revoked Proxy, an error whose
 * `name` or `message` getter throws, or one whose `toString` does.
 *
 * @example
 * ```ts
 * describeThrown(new TypeError('bad')) // 'TypeError: bad'
 * describeThrown(Object.create(null)) // '[object Object]'
 * ```
 */
export function describeThrown(value: unknown): string {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return String(value);
  const name = textField(value, 'name');
  const message = textField(value, 'message');
  if (message.text !== undefined) return `${name.text ?? 'Error'}: ${message.text}`;
  if (message.threw && name.text !== undefined) return `${name.text} (its message cannot be read)`;
  return plainText(value) ?? UNREADABLE;
}
