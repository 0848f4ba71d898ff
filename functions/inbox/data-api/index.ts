export { dataApiDatabase, dataApiDatabaseFromEnv } from './data-api-database.js';
export type { DataApiDatabaseFromEnvOptions, DataApiDatabaseOptions, ResumeRetry } from './data-api-database.js';
export { DataApiResumingError, DataApiStatementTimeoutError, DataApiTransactionEndedError } from './errors.js';
