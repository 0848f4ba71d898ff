import { fileURLToPath } from 'node:url';
import type { Database } from '../functions/inbox/index.js';
import { inboxMigrations, migrateWithRoles, readMigrations, type InboxRole, type Migration, type MigrationReport } from '../functions/inbox/migrations/index.js';

/** The reference app's own migrations (the example's tables and their grants): its InboxDatabase's `migrations`. */
export const REFERENCE_MIGRATIONS_DIR = fileURLToPath(new URL('../migrations', import.meta.url));

/**
 * The database roles the reference stack (lib/stack) attaches to its InboxDatabase: the order
 * worker's, named after its construct (OrderWorker), and the cleanup's default. Its migrations grant
 * the example's tables to `order_worker`.
 */
export const REFERENCE_ROLES: readonly InboxRole[] = [
  { role: 'order_worker', access: 'consumer' },
  { role: 'inbox_cleanup', access: 'cleanup' },
];

/**
 * The migrations the reference stack's migrate function applies: the kit's, then the app's.
 *
 * @example
 * ```ts
 * await migrate(db, await referenceMigrations());
 * ```
 */
export async function referenceMigrations(): Promise<Migration[]> {
  return [...await inboxMigrations(), ...await readMigrations(REFERENCE_MIGRATIONS_DIR)];
}

/**
 * Sets a database up as the reference stack's migrate function does (its roles, the kit's and the
 * app's migrations, the roles' grants), without passwords: the demo and the tests sign in as the
 * owner, or set a role's password themselves.
 *
 * @example
 * ```ts
 * await migrateReferenceDatabase(pgDatabase({ connectionString: scratch.url }));
 * ```
 */
export async function migrateReferenceDatabase(db: Database): Promise<MigrationReport> {
  return migrateWithRoles(db, { migrations: await referenceMigrations(), roles: REFERENCE_ROLES });
}
