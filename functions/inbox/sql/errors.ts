import { InboxError } from '../errors.js';

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
