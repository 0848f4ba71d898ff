import type { Database } from '../database/database.js';
import { ensureRoles, type InboxRole } from './inbox-roles.js';
import { kitGrants } from './kit-grants.js';
import { migrate, type Migration, type MigrationReport } from './migrate.js';

/** What one run of the migrations with the kit's roles does. */
export interface MigrationsWithRoles {
  /** The kit's migrations, then the project's, in the order they apply. */
  readonly migrations: readonly Migration[];
  /**
   * The roles to make (each with its twin) and grant the kit's tables.
   * @default none
   */
  readonly roles?: readonly InboxRole[];
}

/**
 * The migrations of one database with the kit's roles, as `InboxDatabase`'s migrate function runs
 * them (it then sets each role's password from its secret), in three steps that are each safe to
 * run again: the roles and their twins (`ensureRoles`), so the project's migrations may grant their
 * tables to them; the migrations in one ordered, checksummed transaction (`migrate`); then, in one
 * transaction, each role's grants on the kit's tables for its access (the tables exist by then).
 * Run it the same way in a test, with the roles of your stack, so migrations that grant to them
 * apply locally too.
 *
 * @example
 * ```ts
 * import { inboxMigrations, migrateWithRoles, readMigrations } from 'sqs-inbox/migrations';
 * await migrateWithRoles(db, { migrations: [...await inboxMigrations(), ...await readMigrations('migrations')], roles: [{ role: 'ship_orders', access: 'consumer' }] });
 * ```
 */
export async function migrateWithRoles(db: Database, run: MigrationsWithRoles): Promise<MigrationReport> {
  const roles = run.roles ?? [];
  await ensureRoles(db, roles);
  const report = await migrate(db, run.migrations);
  if (roles.length > 0) {
    await db.transaction(async (tx) => {
      for (const { role, access } of roles) for (const statement of kitGrants(role, access)) await tx.query(statement);
    });
  }
  return report;
}
