import { LocalStackError } from '../errors.js';

/**
 * An error as the RDS Data API answers it: an HTTP status, the `x-amzn-ErrorType` name the SDK
 * maps to its exception class, and a `{ "message" }` body.
 */
export class ServiceError extends LocalStackError {
  public constructor(
    public readonly type: string,
    public readonly status: number,
    message: string,
    public readonly extra: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
    this.name = type;
  }
}

/** The PostgreSQL error fields the service copies into a DatabaseErrorException message. */
interface PgErrorFields {
  message: string;
  code?: string;
  detail?: string;
  hint?: string;
  position?: string;
}

/** A request the service refuses: bad JSON, a missing or mistyped member, a busy transaction, a too large result. */
export const badRequest = (message: string) => new ServiceError('BadRequestException', 400, message);

/** Multi-statement SQL. The SDK has no class for this name: it throws its base exception with this `name`. */
export const validationError = (message: string) => new ServiceError('ValidationException', 400, message);

/** A transaction id the service does not (or no longer) know. */
export const transactionNotFound = (transactionId: string) =>
  new ServiceError('TransactionNotFoundException', 404, `Transaction ${transactionId} is not found`);

/** A statement that ran past the statement timeout; it was cancelled. */
export const statementTimeout = () => new ServiceError('StatementTimeoutException', 400, 'Request timed out');

/**
 * The secret a call names cannot be used: the SDK's SecretsErrorException, documented for "the
 * secret provided wasn't found" (also a retrieval timeout or a secret that cannot be decrypted).
 */
export const secretsError = (message: string) => new ServiceError('SecretsErrorException', 400, message);

/**
 * The database refused the secret's user at sign-in (a wrong password, a role that does not exist
 * or may not log in). The service's answer is best evidence, not documented: users report
 * `BadRequestException: FATAL: password authentication failed for user "..."`
 * (ArsenyYankovsky/typeorm-aurora-data-api-driver#86).
 */
export const signInRefused = (message: string) => new ServiceError('BadRequestException', 400, `FATAL: ${message}`);

/** A paused Aurora Serverless database being woken up. */
export const databaseResuming = () =>
  new ServiceError('DatabaseResumingException', 400, 'The Aurora DB instance is resuming after being auto-paused. Please wait a few seconds and try again.');

/**
 * The database cannot be reached (stopped, restarting, or its connection broke under the call), as
 * the service answers when the cluster's writer is unavailable; the SDK retries it (HTTP 504).
 */
export const databaseUnavailable = () =>
  new ServiceError('DatabaseUnavailableException', 504, 'The DB cluster\'s writer instance isn\'t available: try the call again later.');

/** The service cannot take the call now (too many open transactions, or shutting down); the SDK retries these. */
export const serviceUnavailable = (message: string) => new ServiceError('ServiceUnavailableError', 503, message);

/** Anything the emulator did not expect; the SDK retries these. */
export const internalError = () => new ServiceError('InternalServerErrorException', 500, 'InternalServerError');

/** An operation path the service does not have. */
export const unknownOperation = (path: string) => new ServiceError('UnknownOperationException', 404, `No operation at ${path}`);

/**
 * A failed SQL statement as DatabaseErrorException, with the server's text and `SQLState: NNNNN`
 * laid out as the service (PostgreSQL's JDBC driver) lays them out.
 *
 * @example
 * ```ts
 * databaseError({ message: 'division by zero', code: '22012' }).message // 'ERROR: division by zero; SQLState: 22012'
 * ```
 */
export function databaseError(error: PgErrorFields): ServiceError {
  const lines = [`ERROR: ${error.message}`];
  if (error.detail) lines.push(`  Detail: ${error.detail}`);
  if (error.hint) lines.push(`  Hint: ${error.hint}`);
  if (error.position) lines.push(`  Position: ${error.position}`);
  return new ServiceError('DatabaseErrorException', 400, `${lines.join('\n')}${error.code ? `; SQLState: ${error.code}` : ''}`);
}
