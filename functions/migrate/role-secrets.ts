import { InboxError } from '../inbox/index.js';

/**
 * The environment variable that names each function role's secret, as JSON:
 * `{ "inbox_worker": "<secret ARN>", "inbox_cleanup": "<secret ARN>" }`. The stack (lib/) sets it
 * by this name; test/infra pins the two together.
 */
export const ROLE_SECRETS_ENV = 'DATABASE_ROLE_SECRETS';

/** A role name the migrate function manages: what inbox_set_role_password accepts too. */
const ROLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
/** Printable ASCII, which SASLprep leaves as it is (see scramVerifier). */
const ASCII_PASSWORD = /^[\x20-\x7e]+$/;

/** One function role and the ARN of the secret that holds its credentials. */
export interface RoleSecret {
  readonly role: string;
  readonly secretArn: string;
}

/** A role's credentials as its secret holds them. */
export interface RoleCredentials {
  readonly role: string;
  readonly password: string;
}

/**
 * A role secret cannot be used: the list in DATABASE_ROLE_SECRETS is malformed, or a secret does
 * not hold the role's `{ username, password }`. The message names the role and the secret, never
 * the secret's value. Nothing was changed in the database.
 *
 * @example
 * ```ts
 * await expect(readRoleCredentials(roles, readSecret)).rejects.toThrow(RoleSecretError);
 * ```
 */
export class RoleSecretError extends InboxError {
  public constructor(message: string) {
    super(message);
    this.name = 'RoleSecretError';
  }
}

/**
 * The function roles and their secrets, from the JSON of DATABASE_ROLE_SECRETS; none when unset
 * (a stack without function roles). Role names must be lower-case letters, digits and `_`.
 *
 * @example
 * ```ts
 * roleSecretsFrom('{"inbox_worker":"arn:aws:secretsmanager:...:secret:worker"}') // [{ role: 'inbox_worker', secretArn: 'arn:...' }]
 * ```
 */
export function roleSecretsFrom(json: string | undefined): RoleSecret[] {
  if (json === undefined || json.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new RoleSecretError(`${ROLE_SECRETS_ENV} is not JSON: set it to {"<role>": "<secret ARN>", ...}.`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new RoleSecretError(`${ROLE_SECRETS_ENV} must be a JSON object {"<role>": "<secret ARN>", ...}.`);
  }
  return Object.entries(parsed).map(([role, secretArn]) => {
    if (!ROLE_NAME.test(role)) {
      throw new RoleSecretError(`${ROLE_SECRETS_ENV} names the role ${JSON.stringify(role)}: a role name is 1 to 63 lower-case letters, digits or _, not starting with a digit.`);
    }
    if (typeof secretArn !== 'string' || secretArn.trim() === '') {
      throw new RoleSecretError(`${ROLE_SECRETS_ENV} gives role ${role} no secret ARN: map it to the ARN of its secret.`);
    }
    return { role, secretArn };
  });
}

/**
 * The credentials of a role from its secret's text, which must be the JSON `{ username, password }`
 * of that very role (the username guards against a secret of another user, the owner's above all).
 *
 * @example
 * ```ts
 * roleCredentials({ role: 'inbox_worker', secretArn }, '{"username":"inbox_worker","password":"..."}') // { role: 'inbox_worker', password: '...' }
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
  if (username !== target.role) {
    throw new RoleSecretError(`${where} holds the username ${JSON.stringify(username ?? null)}, not ${target.role}: give the role its own secret.`);
  }
  if (typeof password !== 'string' || password === '') {
    throw new RoleSecretError(`${where} holds no password: it must hold {"username": "${target.role}", "password": "..."}.`);
  }
  if (!ASCII_PASSWORD.test(password)) {
    throw new RoleSecretError(`${where} holds a password with characters outside printable ASCII: generate one of ASCII characters.`);
  }
  return { role: target.role, password };
}
