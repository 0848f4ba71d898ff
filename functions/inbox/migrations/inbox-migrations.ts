import { readFile } from 'node:fs/promises';
import type { Migration } from './migrate.js';

/**
 * The kit's own migrations: the inbox table, and the outbox's tables. A project's migrations are
 * numbered after these (this repository's 0002, 0003 and 0005 are its reference app's).
 */
export const INBOX_MIGRATION_FILES = ['0001_consumed_message.sql', '0004_outbox_message.sql'] as const;

// In the repository this is migrations/ at the root; in the package, the copy the build puts in dist/migrations.
const KIT_MIGRATIONS = new URL('../../../migrations/', import.meta.url);

/**
 * The kit's own migrations (the `consumed_message` table, the outbox's `outbox_message` and
 * `outbox_group`), read from the package. Apply them before
 * a project's own: `migrate(db, [...await inboxMigrations(), ...await readMigrations(dir)])`. A
 * bundled function cannot read the package's files: copy `node_modules/sqs-inbox/dist/migrations`
 * next to the bundle and pass that folder to `readMigrations` instead.
 *
 * @example
 * ```ts
 * import { inboxMigrations, migrate } from 'sqs-inbox/migrations';
 * await migrate(db, await inboxMigrations());
 * ```
 */
export async function inboxMigrations(): Promise<Migration[]> {
  return Promise.all(INBOX_MIGRATION_FILES.map(async (name) => ({ name, sql: await readFile(new URL(name, KIT_MIGRATIONS), 'utf8') })));
}
