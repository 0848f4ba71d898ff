import { randomBytes } from 'node:crypto';

/**
 * A UUID version 7 (RFC 9562): 48 bits of Unix time in milliseconds, then 74 random bits, so keys
 * sort by creation time to the millisecond and never collide in practice. Keys made in the same
 * millisecond are not ordered among themselves.
 *
 * @example
 * ```ts
 * uuidv7() // '019a8f3e-5b2c-7d41-9f0a-3c6e2b7d9a10'
 * ```
 */
export function uuidv7(now: number = Date.now()): string {
  if (!Number.isInteger(now) || now < 0 || now >= 2 ** 48) throw new RangeError(`uuidv7 takes milliseconds from 0 to 2^48, but ${now} was given.`);
  const bytes = randomBytes(16);
  let time = now;
  for (let index = 5; index >= 0; index -= 1) {
    bytes[index] = time % 256;
    time = Math.floor(time / 256);
  }
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
