import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';

/** PostgreSQL's own defaults (scram_iterations, SCRAM_DEFAULT_SALT_LEN). */
const SCRAM_DEFAULTS = { iterations: 4096, saltBytes: 16 } as const;

/** Options of `scramVerifier`; a test passes a fixed salt to compare with the server's. */
export interface ScramVerifierOptions {
  /** @default 16 random bytes */
  readonly salt?: Buffer;
  /** @default 4096, PostgreSQL's default */
  readonly iterations?: number;
}

/**
 * The SCRAM-SHA-256 verifier PostgreSQL stores for a password (RFC 5802/7677, as pg_authid holds
 * it): `SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>`, all base64. ALTER ROLE ...
 * PASSWORD stores a verifier as given, so the plain password never travels to the server. The
 * password must be ASCII, which PostgreSQL's SASLprep leaves unchanged (generated secrets are).
 *
 * @example
 * ```ts
 * scramVerifier('s3cret') // 'SCRAM-SHA-256$4096:...$...:...'
 * ```
 */
export function scramVerifier(password: string, options: ScramVerifierOptions = {}): string {
  const iterations = options.iterations ?? SCRAM_DEFAULTS.iterations;
  const salt = options.salt ?? randomBytes(SCRAM_DEFAULTS.saltBytes);
  const salted = pbkdf2Sync(Buffer.from(password, 'utf8'), salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}
