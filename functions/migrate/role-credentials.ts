import { roleCredentials, RoleSecretError, type RoleCredentials, type RoleSecret } from '../database-roles/index.js';

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
 * const credentials = await readRoleCredentials(managedRolesFrom(process.env.DATABASE_ROLES), readSecret);
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
