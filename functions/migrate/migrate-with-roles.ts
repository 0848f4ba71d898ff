import { setRolePassword, type RoleCredentials } from '../database-roles/index.js';
import type { Database } from '../inbox/index.js';
import { migrate, type Migration } from '../inbox/migrations/index.js';
import { kitGrants } from './kit-grants.js';
import type { ManagedRole } from './managed-roles.js';
import type { MigrationsApplied } from './on-event.js';
import { ensureRoles } from './role-setup.js';

/** What one run of the migrations does. */
export interface MigrationsWithRoles {
  /** The kit's migrations, then the project's, in the order they apply. */
  readonly migrations: readonly Migration[];
  /**
   * The roles to make (with their twins) and grant the kit's tables.
   * @default none
   */
  readonly roles?: readonly ManagedRole[];
  /**
   * The passwords to set, each for the login a role's secret holds (read and checked beforehand).
   * @default none
   */
  readonly credentials?: readonly RoleCredentials[];
}

/**
 * The migrations of one database with the roles of its functions, in three steps that are each
 * safe to run again: the roles and their twins (`ensureRoles`), so the project's migrations may
 * grant its tables to them; the kit's migrations and the project's, in one ordered, checksummed
 * transaction (`migrate`); then, in one transaction, each role's grants on the kit's tables for its
 * access (the tables exist by then) and the password of the login each secret holds, as a SCRAM
 * verifier through inbox_set_role_password. Returns what `migrate` did and the logins whose
 * password it set, never a password.
 *
 * @example
 * ```ts
 * await migrateWithRoles(db, { migrations: [...await inboxMigrations(), ...await readMigrations('migrations')], roles: [{ role: 'orders', access: 'consumer' }] });
 * ```
 */
export async function migrateWithRoles(db: Database, run: MigrationsWithRoles): Promise<MigrationsApplied> {
  const roles = run.roles ?? [];
  const credentials = run.credentials ?? [];
  await ensureRoles(db, roles);
  const report = await migrate(db, run.migrations);
  if (roles.length > 0 || credentials.length > 0) {
    await db.transaction(async (tx) => {
      for (const { role, access } of roles) for (const statement of kitGrants(role, access)) await tx.query(statement);
      for (const { username, password } of credentials) await setRolePassword(tx, username, password);
    });
  }
  return { ...report, roles: credentials.map(({ username }) => username) };
}
