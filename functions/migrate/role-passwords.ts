import { roleCredentials, RoleSecretError, setRolePassword, type RoleCredentials, type RoleSecret } from '../database-roles/index.js';
import type { Database } from '../inbox/index.js';

/**
 * Reads a secret's text (its SecretString). The Lambda reads Secrets Manager (`secretsManagerReader`);
 * a test hands in a map.
 */
export type ReadSecret = (secretArn: string) => Promise<string>;

/**
 * Reads and checks every role's secret before the database is touched, so a bad secret fails the
 * deploy with nothing changed. A secret that cannot be read is reported by role and ARN.
 *
 * @example
 * ```ts
 * const credentials = await readRoleCredentials(roleSecretsFrom(process.env.DATABASE_ROLE_SECRETS), readSecret);
 * ```
 */
export async function readRoleCredentials(roles: readonly RoleSecret[], readSecret: ReadSecret): Promise<RoleCredentials[]> {
  return Promise.all(roles.map(async (target) => {
    let text: string;
    try {
      text = await readSecret(target.secretArn);
    } catch (error) {
      const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      throw new RoleSecretError(`The secret ${target.secretArn} of role ${target.role} could not be read (${reason}): `
        + 'the migrate function needs secretsmanager:GetSecretValue on it (and kms:Decrypt on its key).');
    }
    return roleCredentials(target, text);
  }));
}

/**
 * Gives the user each secret signs in as (the role, or its twin once the secret has been rotated)
 * LOGIN and the secret's password, in one transaction, through the inbox_set_role_password
 * function of the migrations (`setRolePassword`). Run after the migrations (which create the roles)
 * on every run, so a changed secret is taken up by the next deploy that runs the migrations; the
 * other login of the role keeps its password, which the rotation's AWSPREVIOUS version holds.
 * Returns the users set, in order; never a password.
 *
 * @example
 * ```ts
 * await setRolePasswords(db, credentials); // ['inbox_worker', 'inbox_cleanup_clone']
 * ```
 */
export async function setRolePasswords(db: Database, credentials: readonly RoleCredentials[]): Promise<string[]> {
  if (credentials.length === 0) return [];
  await db.transaction(async (tx) => {
    for (const { username, password } of credentials) await setRolePassword(tx, username, password);
  });
  return credentials.map(({ username }) => username);
}
