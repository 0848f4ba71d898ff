import { setRolePassword, type RoleCredentials } from '../database-roles/index.js';
import type { Database } from '../inbox/index.js';
import { migrateWithRoles, type MigrationsWithRoles } from '../inbox/migrations/index.js';
import type { MigrationsApplied } from './on-event.js';

/** What one deploy's run of the migrations does. */
export interface DeployedRun extends MigrationsWithRoles {
  /**
   * The passwords to set, each for the login a role's secret holds (read and checked beforehand).
   * @default none
   */
  readonly credentials?: readonly RoleCredentials[];
}

/**
 * The migrate function's run: the kit's roles, the migrations and the roles' grants
 * (`migrateWithRoles`), then, in one transaction, the password of the login each secret holds (the
 * role, or its twin once the secret has been rotated), as a SCRAM verifier through
 * inbox_set_role_password. Every step is safe to run again; the other login of a role keeps its
 * password, which the rotation's AWSPREVIOUS version holds. Returns what `migrate` did and the
 * logins whose password it set, never a password.
 *
 * @example
 * ```ts
 * await deployMigrations(db, { migrations, roles, credentials }); // { applied, alreadyApplied, roles: ['orders', 'inbox_cleanup_clone'] }
 * ```
 */
export async function deployMigrations(db: Database, run: DeployedRun): Promise<MigrationsApplied> {
  const report = await migrateWithRoles(db, run);
  const credentials = run.credentials ?? [];
  if (credentials.length > 0) {
    await db.transaction(async (tx) => {
      for (const { username, password } of credentials) await setRolePassword(tx, username, password);
    });
  }
  return { ...report, roles: credentials.map(({ username }) => username) };
}
