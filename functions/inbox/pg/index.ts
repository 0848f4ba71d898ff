export { pgDatabase } from './pg-database.js';
export type { PgDatabaseOptions } from './pg-database.js';
