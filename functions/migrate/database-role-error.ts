import { InboxError } from '../inbox/index.js';

/**
 * A database role the migrate function was asked to manage cannot be one of the kit's: the list
 * of roles is malformed, or a role of that name exists that the kit did not make (an application's,
 * or a privileged one such as the owner). The message names the role and what to change; the run
 * changed nothing.
 *
 * @example
 * ```ts
 * await expect(migrateWithRoles(db, { migrations, roles: [{ role: 'postgres', access: 'consumer' }] })).rejects.toThrow(DatabaseRoleError);
 * ```
 */
export class DatabaseRoleError extends InboxError {
  public constructor(message: string) {
    super(message);
    this.name = 'DatabaseRoleError';
  }
}
