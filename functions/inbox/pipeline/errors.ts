import { InboxError } from '../errors.js';
import { SqlState, sqlStateOf } from '../sql/sql-state.js';

/**
 * The Lambda event is not a batch of the entry point's source (an SQS batch for `processBatch`, a
 * Kafka batch for `processKafkaBatch`): no records, or a record without its identity or body.
 * Nothing was processed; Lambda retries the whole invocation.
 *
 * @example
 * ```ts
 * await expect(processBatch({} as SQSEvent, context, options)).rejects.toThrow(InvalidEventError);
 * ```
 */
export class InvalidEventError extends InboxError {
  public constructor(source: 'SQS' | 'Kafka', detail: string) {
    const batch = source === 'SQS' ? 'an SQS' : 'a Kafka';
    super(`The event is not ${batch} batch: ${detail}. Attach this handler to ${batch} event source only.`);
    this.name = 'InvalidEventError';
  }
}

/**
 * The idempotency key of a record is missing, empty or too long; the record is rejected under its
 * SQS messageId.
 *
 * @example
 * ```ts
 * key: (record) => record.messageAttributes['order-id']?.stringValue ?? '', // '' is rejected with InvalidKeyError
 * ```
 */
export class InvalidKeyError extends InboxError {
  public constructor(detail: string) {
    super(`The message has no usable idempotency key: ${detail}.`);
    this.name = 'InvalidKeyError';
  }
}

/**
 * The consumer requires the `idempotency-key` attribute (`requireKeyAttribute`) and the message
 * has none: keyed by its fallback, a redriven copy would be applied again. It is rejected under its
 * messageId and acknowledged.
 *
 * @example
 * ```ts
 * onOutcome: (o) => { if (o.error instanceof MissingKeyAttributeError) logger.error('a producer sends without idempotency-key'); }
 * ```
 */
export class MissingKeyAttributeError extends InvalidKeyError {
  public constructor(fallback: string) {
    super(`it has no idempotency-key attribute and this consumer requires one (its ${fallback} would change on a redrive); send the attribute, as sendMessages does`);
    this.name = 'MissingKeyAttributeError';
  }
}

/**
 * A message was not started because the invocation's remaining time was under the safety margin;
 * it is reported failed so SQS delivers it again.
 *
 * @example
 * ```ts
 * onOutcome: (o) => { if (o.error instanceof DeadlineError) console.warn('raise the function timeout'); }
 * ```
 */
export class DeadlineError extends InboxError {
  public constructor(remainingMs: number, marginMs: number) {
    super(`Not started: ${remainingMs} ms left in the invocation, under the ${marginMs} ms margin. Raise the function timeout or lower the batch size.`);
    this.name = 'DeadlineError';
  }
}

/**
 * A message was not attempted because its ordered lane (its FIFO message group, its Kafka
 * partition) is blocked: an earlier message of the lane or, with `laneFailure: 'batch'`, of the
 * batch failed. It is reported failed to keep the order.
 *
 * @example
 * ```ts
 * onOutcome: (o) => { if (o.error instanceof LaneBlockedError) console.info(`${o.messageId} waits behind a failure in ${o.lane}`); }
 * ```
 */
export class LaneBlockedError extends InboxError {
  public constructor(scope: 'group' | 'partition' | 'batch') {
    super(scope === 'batch'
      ? "Not attempted: an earlier message of an ordered lane of this batch failed, and laneFailure is 'batch'."
      : `Not attempted: an earlier message of this ${scope === 'group' ? 'message group' : 'partition'} failed in this batch.`);
    this.name = 'LaneBlockedError';
  }
}

/**
 * The claim found no row for a key it could not take: the holder vanished in between (a cleanup,
 * say). The message fails and is tried again.
 *
 * @example
 * ```ts
 * onOutcome: (o) => { if (o.error instanceof ClaimVanishedError) logger.warn('cleanup raced a claim'); }
 * ```
 */
export class ClaimVanishedError extends InboxError {
  public constructor(key: string) {
    super(`The inbox row for key "${key}" was taken and then gone; the message will be retried.`);
    this.name = 'ClaimVanishedError';
  }
}

/**
 * The database has no inbox table: the kit's migrations have not run there. Every record of the
 * batch is reported failed (those after the first are not even tried), so the event source delivers
 * them again once the table exists, and the consumer says so once per batch at error level; the
 * next batch tries again.
 *
 * @example
 * ```ts
 * onOutcome: (o) => { if (o.error instanceof InboxTableMissingError) alarm('run the inbox migrations'); }
 * ```
 */
export class InboxTableMissingError extends InboxError {
  public constructor(cause: unknown) {
    super('The inbox table consumed_message does not exist in this database (SQLState 42P01): the kit\'s migrations have not run here. '
      + 'Attach the consumer to an InboxDatabase (sqs-inbox/cdk: database: inboxDatabase), which runs them on deploy, or apply them yourself '
      + 'before the consumer starts: migrate(db, [...await inboxMigrations(), ...your own]) from sqs-inbox/migrations. '
      + 'Every record of this batch was reported failed and will be delivered again.', { cause });
    this.name = 'InboxTableMissingError';
  }
}

/**
 * What a failed database call says about the inbox table: an `InboxTableMissingError` when the
 * table the claim names is missing (SQLSTATE 42P01 naming consumed_message, as PostgreSQL words it
 * on either driver), else `undefined`; a missing table of the handler's own is its own failure.
 *
 * @example
 * ```ts
 * const error = inboxTableMissing(caught) ?? caught;
 * ```
 */
export function inboxTableMissing(error: unknown): InboxTableMissingError | undefined {
  if (isInboxTableMissing(error)) return error;
  if (sqlStateOf(error) !== SqlState.undefinedTable) return undefined;
  try {
    return /relation "consumed_message" does not exist/.test(String((error as { message?: unknown }).message)) ? new InboxTableMissingError(error) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether a value is an `InboxTableMissingError`; false for a value that cannot be looked at (a
 * revoked Proxy a handler threw, on which `instanceof` throws).
 *
 * @example
 * ```ts
 * if (isInboxTableMissing(result.error)) reportMissingTable(result.error, options);
 * ```
 */
export function isInboxTableMissing(error: unknown): error is InboxTableMissingError {
  try {
    return error instanceof InboxTableMissingError;
  } catch {
    return false;
  }
}
