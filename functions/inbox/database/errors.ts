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
