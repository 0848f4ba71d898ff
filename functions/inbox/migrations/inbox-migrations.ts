import { KIT_MIGRATION_PREFIX } from '../contract.js';
import type { Migration } from './migrate.js';
import { readMigrations } from './migration-files.js';

// Next to this module, in the repository (.ts) and in the package (dist/, where the build copies them).
const KIT_MIGRATIONS = new URL('./sql/', import.meta.url);

/**
 * The kit's own migrations (the `consumed_message` table, `inbox_set_role_password`, which sets a
 * role's password from a SCRAM verifier, and the outbox's `outbox_message` and `outbox_group`), named `sqs-inbox/NNNN_name.sql` so no migration of a
 * project ever takes their name in schema_migrations. Apply them before a project's own, in one run:
 * `migrate(db, [...await inboxMigrations(), ...await readMigrations(dir)])`. A bundled function
 * cannot read the package's files: copy `node_modules/sqs-inbox/dist/functions/inbox/migrations/sql`
 * next to the bundle and pass that folder as `dir` (`InboxDatabase` does all of this for you).
 *
 * @example
 * ```ts
 * import { inboxMigrations, migrate, readMigrations } from 'sqs-inbox/migrations';
 * await migrate(db, [...await inboxMigrations(), ...await readMigrations('migrations')]);
 * ```
 */
export async function inboxMigrations(dir: string | URL = KIT_MIGRATIONS): Promise<Migration[]> {
  return (await readMigrations(dir)).map(({ name, sql }) => ({ name: `${KIT_MIGRATION_PREFIX}${name}`, sql }));
}
