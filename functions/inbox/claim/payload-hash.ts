import { createHash } from 'node:crypto';

/**
 * The sha-256 of a body (UTF-8 text, or the bytes of a Kafka value), in hex: a different body under a known key is a collision.
 *
 * @example
 * ```ts
 * payloadHash('{"orderId":1}') // '6b1c...'
 * ```
 */
export function payloadHash(body: string | Uint8Array): string {
  const hash = createHash('sha256');
  return (typeof body === 'string' ? hash.update(body, 'utf8') : hash.update(body)).digest('hex');
}
