import { loginsOf } from './alternating-users.js';
import { RoleSecretError } from './role-secret-error.js';

/** Printable ASCII, which SASLprep leaves as it is (see scramVerifier). */
const ASCII_PASSWORD = /^[\x20-\x7e]+$/;

/** One function role and the ARN of the secret that holds its credentials. */
export interface RoleSecret {
  readonly role: string;
  readonly secretArn: string;
}

/** A role's credentials as its secret holds them. */
export interface RoleCredentials {
  /** The function role the secret belongs to. */
  readonly role: string;
  /** The user the secret signs in as: the role, or its twin after an odd number of rotations. */
  readonly username: string;
  readonly password: string;
}

/**
 * The credentials of a role from its secret's text, which must be the JSON `{ username, password }`
 * of that very role or of its twin (the username guards against a secret of another user, the
 * owner's above all). Other fields of the secret are left alone.
 *
 * @example
 * ```ts
 * roleCredentials({ role: 'inbox_worker', secretArn }, '{"username":"inbox_worker_clone","password":"..."}')
 * // { role: 'inbox_worker', username: 'inbox_worker_clone', password: '...' }
 * ```
 */
export function roleCredentials(target: RoleSecret, secretString: string): RoleCredentials {
  const where = `The secret ${target.secretArn} of role ${target.role}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(secretString);
  } catch {
    throw new RoleSecretError(`${where} is not JSON: it must hold {"username": "${target.role}", "password": "..."}.`);
  }
  const { username, password } = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  const logins = loginsOf(target.role);
  if (typeof username !== 'string' || !logins.includes(username)) {
    throw new RoleSecretError(`${where} holds the username ${JSON.stringify(username ?? null)}, not ${logins.join(' or ')}: give the role its own secret.`);
  }
  if (typeof password !== 'string' || password === '') {
    throw new RoleSecretError(`${where} holds no password: it must hold {"username": "${target.role}", "password": "..."}.`);
  }
  if (!ASCII_PASSWORD.test(password)) {
    throw new RoleSecretError(`${where} holds a password with characters outside printable ASCII: generate one of ASCII characters.`);
  }
  return { role: target.role, username, password };
}
