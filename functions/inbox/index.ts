// The root entry point: what a handler author writes. The rest lives on the entry point of its part
// (sqs-inbox/middleware, /kafka, /outbox, /data-api, /pg, /migrations, /cleanup, /producer).
export { processBatch } from './sqs/process-sqs-batch.js';
export { processKafkaBatch } from './kafka/process-kafka-batch.js';
export type { KafkaInboxOptions } from './kafka/process-kafka-batch.js';
export type { InboxCommonOptions, InboxOptions, MessageContext, StatementModeOptions, TransactionModeOptions } from './options.js';
export type { StatementContext } from './statement-context.js';
export type { InboxLogger, InboxMetrics } from './telemetry.js';
export { sql, SqlStatement } from './sql/sql.js';
export type { Database, Transaction } from './database/database.js';
export type { OutboxMessage } from './outbox/outbox-message.js';
export type { OutboxContext } from './outbox/outbox-options.js';
export { OutcomeKind } from './outcome.js';
export type { Outcome } from './outcome.js';
export { InboxConfigError, InboxError } from './errors.js';
export {
  DeadlineError, InboxTableMissingError, InvalidEventError, InvalidKeyError, LaneBlockedError, MissingKeyAttributeError,
} from './pipeline/errors.js';
export { PermanentError } from './permanent-error.js';
export { DatabaseQueryError } from './database/errors.js';
