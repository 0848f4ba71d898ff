/**
 * Base class of every error the kit throws, so callers can tell the kit's refusals from their own.
 *
 * @example
 * ```ts
 * try { await processBatch(event, context, options); }
 * catch (error) { if (error instanceof InboxError) logger.error('inbox refused the call', { error }); throw error; }
 * ```
 */
export class InboxError extends Error {
  public constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'InboxError';
  }
}

/**
 * Thrown by a handler to say the message can never succeed: the transaction is rolled back, the
 * message is recorded as rejected with this error's message, acknowledged, and not retried.
 *
 * @example
 * ```ts
 * handle: async (order, { tx }) => {
 *   if (order.quantity <= 0) throw new PermanentError(`order ${order.id} has no quantity`);
 *   await tx.query(sql`UPDATE stock SET reserved = reserved + ${order.quantity} WHERE sku = ${order.sku}`);
 * }
 * ```
 */
export class PermanentError extends Error {
  public constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'PermanentError';
  }
}

/**
 * The Lambda event is not an SQS batch (no `Records` array, or a record without `messageId` or
 * `body`). Nothing was processed; Lambda retries the whole invocation.
 *
 * @example
 * ```ts
 * await expect(processBatch({} as SQSEvent, context, options)).rejects.toThrow(InvalidEventError);
 * ```
 */
export class InvalidEventError extends InboxError {
  public constructor(detail: string) {
    super(`The event is not an SQS batch: ${detail}. Attach this handler to an SQS event source only.`);
    this.name = 'InvalidEventError';
  }
}

/**
 * The options given to `inbox()` or `processBatch()` cannot work; the message says which one to change.
 *
 * @example
 * ```ts
 * expect(() => inbox({ consumer: '', db, handle })).toThrow(InboxConfigError);
 * ```
 */
export class InboxConfigError extends InboxError {
  public constructor(message: string) {
    super(message);
    this.name = 'InboxConfigError';
  }
}

/**
 * A `sql` template was misused: called as a plain function, given `undefined`, or given an
 * identifier or typed value that is not valid.
 *
 * @example
 * ```ts
 * expect(() => sql`SELECT ${undefined}`).toThrow(SqlTemplateError);
 * ```
 */
export class SqlTemplateError extends InboxError {
  public constructor(message: string) {
    super(message);
    this.name = 'SqlTemplateError';
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
 * A message was not attempted because an earlier message of its FIFO group (or, with
 * `fifoFailure: 'batch'`, of its batch) failed; it is reported failed to keep the order.
 *
 * @example
 * ```ts
 * onOutcome: (o) => { if (o.kind === 'skipped' && o.error instanceof FifoSkipError) console.info(o.groupId); }
 * ```
 */
export class FifoSkipError extends InboxError {
  public constructor(scope: 'group' | 'batch') {
    super(scope === 'group'
      ? 'Not attempted: an earlier message of this message group failed in this batch.'
      : 'Not attempted: an earlier message of this FIFO batch failed.');
    this.name = 'FifoSkipError';
  }
}

/**
 * A statement failed in the database. `sqlState` holds the SQLSTATE when the server gave one, so
 * both drivers classify retries alike.
 *
 * @example
 * ```ts
 * catch (error) { if (error instanceof DatabaseQueryError && error.sqlState === '23505') ... }
 * ```
 */
export class DatabaseQueryError extends InboxError {
  public readonly sqlState: string | undefined;
  public constructor(message: string, sqlState: string | undefined, options?: ErrorOptions) {
    super(message, options);
    this.name = 'DatabaseQueryError';
    this.sqlState = sqlState;
  }
}
