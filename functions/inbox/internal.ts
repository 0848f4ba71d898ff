// The kit's internals that its own emulators, benchmarks and tests share. Not a package entry
// point: nothing here is part of the public API.
export { classifyExisting, claimStatement, existingClaimStatement, guardedStatement, rejectStatement } from './claim/claim.js';
export type { ClaimTarget } from './claim/claim.js';
export { payloadHash } from './claim/payload-hash.js';
export { AWS_LIMITS } from './aws-limits.js';
export { INBOX_ENV } from './contract.js';
export type { QueryResult } from './database/database.js';
export { migrationChecksum } from './migrations/checksum.js';
export { KIT_ROLE_COMMENT } from './migrations/inbox-roles.js';
export { DEFAULTS } from './options.js';
export { messageSize } from './producer/sqs-entry.js';
export { uuidv7 } from './producer/uuid-v7.js';
export { backoffDelay, retry, sleep } from './retry.js';
export type { Backoff, RetryPolicy } from './retry.js';
export { toSqsRecord } from './sqs/sqs-message-record.js';
export type { EventSourceQueue } from './sqs/sqs-message-record.js';
export { sqlStateOf } from './sql/sql-state.js';
export { codeSpans, splitStatements } from './sql/sql-text.js';
export type { CodeSpan } from './sql/sql-text.js';
export { toPgQuery } from './sql/sql.js';
export { withDefaults } from './with-defaults.js';
export type { WithDefaults } from './with-defaults.js';
