import { InboxError } from '../errors.js';

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

/**
 * A query was issued on a transaction that had ended, and did not run: after its callback had
 * returned or thrown (it is then committed or rolled back; a query from a timer or an un-awaited
 * `.then` chain comes too late), or after the Data API had ended it (3 minutes without a call, or
 * a failed statement). A late query never runs in another transaction. Both drivers throw it.
 *
 * @example
 * ```ts
 * onOutcome: (o) => { if (o.error instanceof TransactionEndedError) logger.warn('a handler used its transaction after it ended'); }
 * ```
 */
export class TransactionEndedError extends InboxError {
  /** The Data API's id of the transaction, when the service ended it. */
  public readonly transactionId: string | undefined;
  public constructor(transactionId?: string, options?: ErrorOptions) {
    super(transactionId === undefined
      ? 'The transaction had ended when this query was issued (its callback had returned, so it was committed or rolled back), and the query did not run. Await every query of a transaction inside its callback (inside handle), not in a timer or an un-awaited chain.'
      : `The Data API has already ended transaction ${transactionId} (3 minutes without a call, or a failed statement); nothing of it committed. Keep the calls of one transaction close together and do not reuse a transaction after an error.`, options);
    this.name = 'TransactionEndedError';
    this.transactionId = transactionId;
  }
}

/**
 * The transaction's callback (`handle`) returned while some of its queries were still running,
 * as `items.forEach(async (item) => tx.query(...))` does: the handler did not wait for its own
 * effect, so the transaction is rolled back once they have settled, and the message fails and is
 * retried rather than being committed without them.
 *
 * @example
 * ```ts
 * handle: async (order, { tx }) => { for (const line of order.lines) await tx.query(reserve(line)); } // not order.lines.forEach(async ...)
 * ```
 */
export class UnawaitedQueryError extends InboxError {
  public readonly running: number;
  public constructor(running: number) {
    super(`The transaction's callback returned while ${running} of its queries ${running === 1 ? 'was' : 'were'} still running, so it was rolled back: await every tx.query before handle returns (a for loop with await, or await Promise.all(...); not forEach(async ...)).`);
    this.name = 'UnawaitedQueryError';
    this.running = running;
  }
}
