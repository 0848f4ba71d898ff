export { dataApiDatabase, dataApiDatabaseFromEnv } from './data-api-database.js';
export type { DataApiDatabaseFromEnvOptions, DataApiDatabaseOptions, ResumeRetry } from './data-api-database.js';
export { DataApiResumingError, DataApiStatementTimeoutError } from './errors.js';
export { isResuming, untilResumed } from './until-resumed.js';
export type { ResumeWait } from './until-resumed.js';
