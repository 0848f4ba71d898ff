export { KIT_MIGRATION_PREFIX, MIGRATE_ASSET_FOLDERS } from '../contract.js';
export { MigrationChecksumError, MigrationFailedError, MigrationFileError } from './errors.js';
export { inboxMigrations } from './inbox-migrations.js';
export { migrate } from './migrate.js';
export type { Migration, MigrationReport } from './migrate.js';
export { readMigrations } from './migration-files.js';
export { migrationsHashOf } from './migrations-hash.js';
export type { HashedMigration } from './migrations-hash.js';
