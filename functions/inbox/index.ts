export type { Database, QueryResult, Row, Transaction } from './database/database.js';
export { DatabaseQueryError, TransactionEndedError, UnawaitedQueryError } from './database/errors.js';
export { DATABASE_ROLE_ACCESS, INBOX_ENV, ROLE_TWIN_SUFFIX } from './contract.js';
export type { DatabaseRoleAccess } from './contract.js';
export { InboxConfigError, InboxError } from './errors.js';
export type { InboxCommonOptions, InboxOptions, MessageContext, StatementModeOptions, TransactionModeOptions } from './options.js';
export { OutboxMessageRefusedError, OutboxTargetError } from './outbox/errors.js';
export type { OutboxMessage } from './outbox/outbox-message.js';
export type { OutboxContext, OutboxDispatchReport, OutboxOptions, StatementOutboxOptions } from './outbox/outbox-options.js';
export { isRedelivered, OutcomeKind } from './outcome.js';
export type { KeyFallback, Outcome } from './outcome.js';
export {
  ClaimVanishedError, DeadlineError, FifoSkipError, InboxTableMissingError, InvalidEventError, InvalidKeyError, MissingKeyAttributeError,
} from './pipeline/errors.js';
export { PermanentError } from './permanent-error.js';
export type { StatementContext } from './statement-context.js';
export type { InboxLogger, InboxMetrics } from './telemetry.js';
export { SqlTemplateError } from './sql/errors.js';
export { SqlState, sqlStateOf } from './sql/sql-state.js';
export { sql, SqlStatement, TypedValue } from './sql/sql.js';
export type { SqlValue, TypeHint } from './sql/sql.js';
export { inbox } from './sqs/middleware.js';
export { processBatch } from './sqs/process-batch.js';
export { kafkaHeader, kafkaPartitionOf, kafkaValue } from './kafka/kafka-event.js';
export type { KafkaBatchResponse, KafkaEvent, KafkaItemIdentifier, KafkaRecord } from './kafka/kafka-event.js';
export { kafkaInbox } from './kafka/kafka-middleware.js';
export { processKafkaBatch } from './kafka/process-kafka-batch.js';
export type { KafkaInboxOptions } from './kafka/process-kafka-batch.js';
