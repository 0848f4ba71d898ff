import { twinOf, type RoleSecret } from '../database-roles/index.js';
import { DATABASE_ROLE_ACCESS, INBOX_ENV, type DatabaseRoleAccess } from '../inbox/index.js';
import { DatabaseRoleError, type InboxRole } from '../inbox/migrations/index.js';

/** A role the migrate function makes and grants the kit's tables for its `access`, with the secret whose password it gets. */
export interface ManagedRoleSecret extends InboxRole, RoleSecret {}

const ACCESS = new Set<string>(Object.values(DATABASE_ROLE_ACCESS));
const NAME = INBOX_ENV.databaseRoles;

function roleOf(role: string, entry: unknown): ManagedRoleSecret {
  // twinOf checks the name: lower-case letters, digits and _, room for the twin's suffix.
  try {
    twinOf(role);
  } catch (error) {
    throw new DatabaseRoleError(`${NAME} names the role ${JSON.stringify(role)}, which cannot be one of the kit's: ${(error as Error).message}`);
  }
  const { secretArn, access } = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
  if (typeof secretArn !== 'string' || secretArn.trim() === '') {
    throw new DatabaseRoleError(`${NAME} gives role ${role} no secretArn: map it to {"secretArn": "<ARN>", "access": "consumer"}.`);
  }
  if (typeof access !== 'string' || !ACCESS.has(access)) {
    throw new DatabaseRoleError(`${NAME} gives role ${role} the access ${JSON.stringify(access ?? null)}: use one of ${[...ACCESS].join(', ')}.`);
  }
  return { role, secretArn, access: access as DatabaseRoleAccess };
}

/**
 * The roles of DATABASE_ROLES (`{ "<role>": { "secretArn": "<ARN>", "access": "consumer" } }`, as
 * `InboxDatabase` sets it), each name checked; none when unset.
 *
 * @example
 * ```ts
 * managedRolesFrom('{"orders":{"secretArn":"arn:aws:secretsmanager:...","access":"consumer"}}')
 * // [{ role: 'orders', secretArn: 'arn:...', access: 'consumer' }]
 * ```
 */
export function managedRolesFrom(json: string | undefined): ManagedRoleSecret[] {
  if (json === undefined || json.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new DatabaseRoleError(`${NAME} is not JSON: set it to {"<role>": {"secretArn": "<ARN>", "access": "consumer"}, ...}.`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new DatabaseRoleError(`${NAME} must be a JSON object {"<role>": {"secretArn": "<ARN>", "access": "consumer"}, ...}.`);
  }
  return Object.entries(parsed).map(([role, entry]) => roleOf(role, entry));
}
