/**
 * Base class of every error the local stand-ins throw (a refused option, an emulator's fault, a
 * server that cannot start), apart from the kit's `InboxError`: a handler that catches `InboxError`
 * never swallows an emulator's fault, and a test tells the stack's errors from the kit's.
 *
 * @example
 * ```ts
 * try { await startDataApi({ databaseUrl }); }
 * catch (error) { if (error instanceof LocalStackError) console.error('the local stack could not start:', error.message); throw error; }
 * ```
 */
export class LocalStackError extends Error {
  public constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'LocalStackError';
  }
}

/**
 * An option given to a stand-in (or a value handed to one) that it cannot work with; the message
 * names it, says what it must be and quotes what was given.
 *
 * @example
 * ```ts
 * await expect(startSqs({ accountId: '1' })).rejects.toThrow(LocalConfigError);
 * ```
 */
export class LocalConfigError extends LocalStackError {
  public constructor(message: string) {
    super(message);
    this.name = 'LocalConfigError';
  }
}
