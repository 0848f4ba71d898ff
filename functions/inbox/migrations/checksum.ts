import { createHash } from 'node:crypto';

/**
 * The checksum recorded for a migration: sha-256 of its text, in hex.
 *
 * @example
 * ```ts
 * migrationChecksum('CREATE TABLE t (a int);') // '3c2f...' (64 hex digits)
 * ```
 */
export function migrationChecksum(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
