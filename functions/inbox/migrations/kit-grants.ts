import type { DatabaseRoleAccess } from '../contract.js';
import { sql, type SqlIdentifier, type SqlStatement } from '../sql/sql.js';

/**
 * What each kind of role may do on the kit's own tables, and nothing more. A consumer claims and
 * rejects with INSERT ... ON CONFLICT DO NOTHING and reads a known key's row (duplicate or
 * collision); it never updates or deletes an inbox row. The cleanup deletes rows past the retention,
 * picked with SELECT ... FOR UPDATE SKIP LOCKED, which PostgreSQL allows only with UPDATE on a
 * column: it gets processed_at alone, the column it judges rows by (changing it can only make a row
 * go sooner or later, which its DELETE allows anyway), and reads a row's key and age, not its hash
 * or error. A project's own tables are granted by the project's migrations.
 */
const KIT_GRANTS: Readonly<Record<DatabaseRoleAccess, (role: SqlIdentifier) => SqlStatement[]>> = {
  consumer: (role) => [sql`GRANT SELECT, INSERT ON consumed_message TO ${role}`],
  cleanup: (role) => [
    sql`GRANT SELECT (consumer_name, message_id, processed_at), DELETE ON consumed_message TO ${role}`,
    sql`GRANT UPDATE (processed_at) ON consumed_message TO ${role}`,
  ],
};

/**
 * The GRANT statements of the kit's tables for a role of `access`, the role's name validated and
 * quoted (`sql.identifier`): GRANT takes no bound parameter.
 *
 * @example
 * ```ts
 * for (const statement of kitGrants('orders', 'consumer')) await tx.query(statement);
 * // GRANT SELECT, INSERT ON consumed_message TO "orders"
 * ```
 */
export function kitGrants(role: string, access: DatabaseRoleAccess): SqlStatement[] {
  return KIT_GRANTS[access](sql.identifier(role));
}
