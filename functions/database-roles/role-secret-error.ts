import { InboxError } from '../inbox/index.js';

/**
 * A role secret cannot be used: a list of role secrets is malformed, or a secret does not hold the
 * role's `{ username, password }`. The message names the role and the secret, never the secret's
 * value. Nothing was changed in the database.
 *
 * @example
 * ```ts
 * await expect(readRoleCredentials(roles, readSecret)).rejects.toThrow(RoleSecretError);
 * ```
 */
export class RoleSecretError extends InboxError {
  public constructor(message: string) {
    super(message);
    this.name = 'RoleSecretError';
  }
}
