export type { Database, QueryResult, Row, Transaction } from './database.js';
export {
  DatabaseQueryError,
  DeadlineError,
  FifoSkipError,
  InboxConfigError,
  InboxError,
  InvalidEventError,
  InvalidKeyError,
  PermanentError,
  SqlTemplateError,
} from './errors.js';
export type { InboxOptions, MessageContext } from './options.js';
export { OutcomeKind } from './outcome.js';
export type { Outcome } from './outcome.js';
export { pgDatabase } from './pg-database.js';
export type { PgDatabaseOptions } from './pg-database.js';
export { SqlState, sqlStateOf } from './sql-state.js';
export { sql, SqlStatement, TypedValue } from './sql.js';
export type { SqlValue, TypeHint } from './sql.js';
export { inbox } from './middleware.js';
export { processBatch } from './process-batch.js';
export { migrate, migrationChecksum, MigrationChecksumError, MigrationFailedError } from './migrate.js';
export type { Migration, MigrationReport } from './migrate.js';
export { MigrationFileError, readMigrations } from './migration-files.js';
export { dataApiDatabase, dataApiDatabaseFromEnv } from './data-api-database.js';
export type { DataApiDatabaseFromEnvOptions, DataApiDatabaseOptions, ResumeRetry } from './data-api-database.js';
export { DataApiResumingError, DataApiStatementTimeoutError, DataApiTransactionEndedError } from './data-api-errors.js';
export { codeSpans, splitStatements } from './sql-text.js';
export type { CodeSpan } from './sql-text.js';
export { cleanupInbox } from './cleanup.js';
export type { CleanupOptions, CleanupReport } from './cleanup.js';
export { sendMessages } from './producer.js';
export type { FailedMessage, OutgoingMessage, SendMessagesOptions, SendMessagesResult, SentMessage } from './producer.js';
export { uuidv7 } from './uuid-v7.js';
