import { ROLE_TWIN_SUFFIX } from '../inbox/contract.js';
import { RoleSecretError } from './role-secret-error.js';

/**
 * A database role name the functions manage: lower-case letters, digits and `_`, at most 63 (what
 * PostgreSQL keeps of a name), as migrations/0003's inbox_set_role_password accepts.
 */
export const ROLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The twin of a function role: a second login that is a member of the role, so it has the role's
 * privileges, and that the role secret's rotation alternates with the role (alternating users). A
 * migration creates it with the role; the rotation sets its password. Named with the suffix of AWS's
 * alternating-users rotation templates (SecretsManagerRDSPostgreSQLRotationMultiUser), so a secret
 * of this kit looks as theirs does.
 *
 * @example
 * ```ts
 * twinOf('inbox_worker') // 'inbox_worker_clone'
 * ```
 */
export function twinOf(role: string): string {
  const twin = `${role}${ROLE_TWIN_SUFFIX}`;
  if (!ROLE_NAME.test(role) || role.endsWith(ROLE_TWIN_SUFFIX) || !ROLE_NAME.test(twin)) {
    throw new RoleSecretError(`${JSON.stringify(role)} cannot have a twin: a function role is 1 to ${63 - ROLE_TWIN_SUFFIX.length} lower-case letters, `
      + `digits or _, not starting with a digit and not ending in ${ROLE_TWIN_SUFFIX}.`);
  }
  return twin;
}

/**
 * The two users that sign in for `role`, the role itself and its twin: a role secret holds either.
 *
 * @example
 * ```ts
 * loginsOf('inbox_worker') // ['inbox_worker', 'inbox_worker_clone']
 * ```
 */
export function loginsOf(role: string): readonly [string, string] {
  return [role, twinOf(role)];
}

/**
 * The user a rotation gives the next password to: of the role's two logins, the one the secret does
 * not hold now, so the clients keep signing in with the current one until the rotation ends.
 *
 * @example
 * ```ts
 * alternateLogin('inbox_worker', 'inbox_worker') // 'inbox_worker_clone'
 * alternateLogin('inbox_worker', 'inbox_worker_clone') // 'inbox_worker'
 * ```
 */
export function alternateLogin(role: string, current: string): string {
  const [self, twin] = loginsOf(role);
  if (current === self) return twin;
  if (current === twin) return self;
  throw new RoleSecretError(`The secret of role ${role} holds the username ${JSON.stringify(current)}, which is neither ${self} nor ${twin}: `
    + 'give the role its own secret.');
}
