export type { Database, QueryResult, Row, Transaction } from './database/database.js';
export { DatabaseQueryError, TransactionEndedError, UnawaitedQueryError } from './database/errors.js';
export { INBOX_ENV, ROLE_TWIN_SUFFIX } from './contract.js';
export { InboxConfigError, InboxError } from './errors.js';
export type {
  InboxCommonOptions,
  InboxLogger,
  InboxMetrics,
  InboxOptions,
  MessageContext,
  StatementContext,
  StatementModeOptions,
  TransactionModeOptions,
} from './options.js';
export { OutboxMessageRefusedError, OutboxTargetError } from './outbox/errors.js';
export type { OutboxMessage } from './outbox/outbox-message.js';
export type { OutboxContext, OutboxDispatchReport, OutboxOptions, StatementOutboxOptions } from './outbox/outbox-options.js';
export { isRedelivered, OutcomeKind } from './outcome.js';
export type { KeyFallback, Outcome } from './outcome.js';
export { ClaimVanishedError, DeadlineError, FifoSkipError, InvalidEventError, InvalidKeyError, MissingKeyAttributeError, PermanentError } from './pipeline/errors.js';
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
