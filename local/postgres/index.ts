export { PostgresError, PostgresSetupError } from './postgres-errors.js';
export { startPostgres } from './start-postgres.js';
export type { RunningPostgres, StartPostgresOptions } from './start-postgres.js';
