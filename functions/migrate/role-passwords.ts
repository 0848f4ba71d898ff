import { sql, type Database } from '../inbox/index.js';
import { roleCredentials, RoleSecretError, type RoleCredentials, type RoleSecret } from './role-secrets.js';
import { scramVerifier } from './scram-verifier.js';

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
 * Gives each role LOGIN and its secret's password, in one transaction, through the
 * inbox_set_role_password function of the migrations: the password goes as a SCRAM-SHA-256
 * verifier, bound, never as text in a statement. Run after the migrations (which create the roles)
 * on every run, so a changed secret is taken up by the next deploy that runs the migrations.
 * Returns the roles set, in order; never a password.
 *
 * @example
 * ```ts
 * await setRolePasswords(db, credentials); // ['inbox_worker', 'inbox_cleanup']
 * ```
 */
export async function setRolePasswords(db: Database, credentials: readonly RoleCredentials[]): Promise<string[]> {
  if (credentials.length === 0) return [];
  await db.transaction(async (tx) => {
    for (const { role, password } of credentials) {
      await tx.query(sql`SELECT inbox_set_role_password(${role}, ${scramVerifier(password)})`);
    }
  });
  return credentials.map(({ role }) => role);
}
