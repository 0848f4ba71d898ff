import type { SQSRecord } from 'aws-lambda';
import { InvalidKeyError } from './errors.js';
import { DEFAULTS } from './options.js';

/**
 * The default idempotency key: the `idempotency-key` message attribute, else the FIFO
 * `MessageDeduplicationId`, else the SQS `messageId`.
 *
 * @example
 * ```ts
 * defaultKey(record) // 'order-42-v1' when the producer set the idempotency-key attribute
 * ```
 */
export function defaultKey(record: SQSRecord): string {
  const attribute = record.messageAttributes?.[DEFAULTS.idempotencyKeyAttribute]?.stringValue;
  if (attribute !== undefined) return attribute;
  const deduplicationId = (record.attributes as Partial<SQSRecord['attributes']> | undefined)?.MessageDeduplicationId;
  return deduplicationId ?? record.messageId;
}

/** A record's key, or why it has none. */
export type KeyResult = { ok: true; key: string } | { ok: false; error: InvalidKeyError };

/**
 * Applies the key function and checks its answer: a throw, a non-string, an empty string or one
 * longer than 512 characters is an `InvalidKeyError`.
 *
 * @example
 * ```ts
 * const result = keyOf(record, defaultKey);
 * if (!result.ok) console.warn(result.error.message);
 * ```
 */
export function keyOf(record: SQSRecord, key: (record: SQSRecord) => string): KeyResult {
  let value: unknown;
  try {
    value = key(record);
  } catch (error) {
    return { ok: false, error: new InvalidKeyError(`the key function threw: ${(error as Error)?.message ?? String(error)}`) };
  }
  if (typeof value !== 'string') return { ok: false, error: new InvalidKeyError(`the key function returned ${typeof value}, not a string`) };
  if (value === '') return { ok: false, error: new InvalidKeyError('the key is empty') };
  if (value.length > DEFAULTS.maxKeyLength) {
    return { ok: false, error: new InvalidKeyError(`the key has ${value.length} characters, over the ${DEFAULTS.maxKeyLength} allowed`) };
  }
  return { ok: true, key: value };
}
