export { DatabaseRoleError, MigrationChecksumError, MigrationFailedError, MigrationFileError } from './errors.js';
export { inboxMigrations } from './inbox-migrations.js';
export type { InboxRole } from './inbox-roles.js';
export { migrate } from './migrate.js';
export type { Migration, MigrationReport } from './migrate.js';
export { migrateWithRoles } from './migrate-with-roles.js';
export type { MigrationsWithRoles } from './migrate-with-roles.js';
export { readMigrations } from './migration-files.js';
export { migrationsHashOf } from './migrations-hash.js';
