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
