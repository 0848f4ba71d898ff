import { LocalStackError } from '../errors.js';

/**
 * Base of what `startPostgres` and its server throw: a start that failed, a server that is closed.
 *
 * @example
 * ```ts
 * try { await startPostgres(); } catch (error) { if (error instanceof PostgresError) console.error(error.message); throw error; }
 * ```
 */
export class PostgresError extends LocalStackError {
  public constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'PostgresError';
  }
}

/**
 * The embedded PostgreSQL cannot be set up on this machine at all (its binaries are not installed,
 * or as root its account cannot reach them), so trying again would not help. The message is one
 * sentence that says why and what to do.
 */
export class PostgresSetupError extends PostgresError {
  public constructor(message: string) {
    super(message);
    this.name = 'PostgresSetupError';
  }
}
