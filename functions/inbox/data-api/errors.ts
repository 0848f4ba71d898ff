import { InboxError } from '../errors.js';

/**
 * A statement ran past the Data API's limit (45 seconds) and was cancelled (StatementTimeoutException).
 *
 * @example
 * ```ts
 * onOutcome: (o) => { if (o.error instanceof DataApiStatementTimeoutError) logger.error('a statement is too slow for the Data API'); }
 * ```
 */
export class DataApiStatementTimeoutError extends InboxError {
  public constructor(options?: ErrorOptions) {
    super('The statement ran past the Data API limit of 45 seconds and was cancelled: make it cheaper (an index, a smaller batch) or split it.', options);
    this.name = 'DataApiStatementTimeoutError';
  }
}

/**
 * Aurora Serverless was still resuming from a pause after every wait of `resumeRetry`
 * (DatabaseResumingException). The cause is the service's DatabaseResumingException, which the
 * runtime recognises and retries in place while the invocation has time.
 *
 * @example
 * ```ts
 * const db = dataApiDatabase({ resourceArn, secretArn, database, resumeRetry: { attempts: 10 } }); // wait longer for a resume
 * ```
 */
export class DataApiResumingError extends InboxError {
  public constructor(attempts: number, waitedMs: number, options?: ErrorOptions) {
    super(`The Aurora database was still resuming after ${attempts} tries over ${waitedMs} ms: the call may be retried. Raise resumeRetry.attempts, or keep the cluster's minimum capacity above 0 ACU.`, options);
    this.name = 'DataApiResumingError';
  }
}
