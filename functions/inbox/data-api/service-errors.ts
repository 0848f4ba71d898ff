import { DatabaseQueryError, TransactionEndedError } from '../database/errors.js';
import { sqlStateOf } from '../sql/sql-state.js';
import { DataApiResumingError, DataApiStatementTimeoutError } from './errors.js';

// What the service and older versions of it say of a transaction it no longer has.
const TRANSACTION_GONE = /Transaction .* (is not|isn't) found/i;

/**
 * The exception name the SDK gave an error, if any.
 *
 * @example
 * ```ts
 * serviceErrorName(error) === 'DatabaseResumingException'
 * ```
 */
export function serviceErrorName(error: unknown): string | undefined {
  const name = typeof error === 'object' && error !== null ? (error as { name?: unknown }).name : undefined;
  return typeof name === 'string' ? name : undefined;
}

function isTransactionGone(error: unknown): boolean {
  const name = serviceErrorName(error);
  if (name === 'TransactionNotFoundException') return true;
  return (name === 'BadRequestException' || name === 'NotFoundException') && TRANSACTION_GONE.test((error as Error).message);
}

/**
 * The kit's error for a failed Data API call: the SQLSTATE read from a DatabaseErrorException's
 * message, a transaction the service no longer has, the statement timeout and a resuming cluster
 * named; anything else as it came.
 *
 * @example
 * ```ts
 * throw translateServiceError(error, transactionId);
 * ```
 */
export function translateServiceError(error: unknown, transactionId: string | undefined): unknown {
  if (transactionId !== undefined && isTransactionGone(error)) return new TransactionEndedError(transactionId, { cause: error });
  switch (serviceErrorName(error)) {
    case 'DatabaseErrorException':
      return new DatabaseQueryError((error as Error).message, sqlStateOf(error), { cause: error });
    case 'StatementTimeoutException':
      return new DataApiStatementTimeoutError({ cause: error });
    case 'DatabaseResumingException':
      return new DataApiResumingError(1, 0, { cause: error });
    default:
      return error;
  }
}
