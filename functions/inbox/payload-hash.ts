import { createHash } from 'node:crypto';

/**
 * The sha-256 of a body, in hex: a different body under a known key is a collision.
 *
 * @example
 * ```ts
 * payloadHash('{"orderId":1}') // '6b1c...'
 * ```
 */
export function payloadHash(body: string): string {
  return createHash('sha256').update(body, 'utf8').digest('hex');
}
