import { loginsOf, twinOf } from '../database-roles/index.js';
import { sql, SqlStatement, type Database, type Transaction } from '../inbox/index.js';
import { DatabaseRoleError } from './database-role-error.js';
import type { ManagedRole } from './managed-roles.js';

/**
 * The comment each role the kit makes carries, by which the kit knows its own roles again: a role of
 * that name that lacks it belongs to someone else, and its password is never reset.
 */
export const KIT_ROLE_COMMENT = 'Made by sqs-inbox (InboxDatabase): its password comes from a Secrets Manager secret.';

interface ExistingRole {
  readonly privileged: boolean;
  readonly caller: boolean;
  readonly ours: boolean;
}

async function existingRole(tx: Transaction, login: string): Promise<ExistingRole | undefined> {
  const { rows } = await tx.query<ExistingRole>(sql`SELECT
      rolsuper OR rolcreaterole OR rolcreatedb OR rolreplication OR rolbypassrls AS privileged,
      rolname = current_user AS caller,
      coalesce(shobj_description(oid, 'pg_authid') = ${KIT_ROLE_COMMENT}, false) AS ours
    FROM pg_roles WHERE rolname = ${login}`);
  return rows[0];
}

async function ensureLogin(tx: Transaction, login: string): Promise<void> {
  const found = await existingRole(tx, login);
  const role = sql.identifier(login);
  if (found === undefined) {
    await tx.query(sql`CREATE ROLE ${role} NOLOGIN`);
    // COMMENT takes a literal, never a parameter: the kit's own constant, which holds no quote.
    await tx.query(new SqlStatement([`COMMENT ON ROLE ${role.quoted} IS '${KIT_ROLE_COMMENT}'`], []));
    return;
  }
  if (found.privileged || found.caller) {
    throw new DatabaseRoleError(`Role ${login} is privileged (superuser, CREATEROLE, CREATEDB, REPLICATION or BYPASSRLS) or the owner the migrations `
      + 'sign in as, and the kit\'s roles are plain roles of their own: give the consumer another databaseRole (the cleanup another cleanupRole).');
  }
  if (!found.ours) {
    throw new DatabaseRoleError(`Role ${login} exists but sqs-inbox did not make it (it lacks the kit's comment), so its password is not the kit's to set: `
      + 'give the consumer another databaseRole (the cleanup another cleanupRole); roles belong to the whole cluster, so another database\'s count too.');
  }
}

/**
 * Makes each role and its twin (the second login of the alternating-users rotation, a member of the
 * role) where missing, NOLOGIN and marked with `KIT_ROLE_COMMENT`, in one transaction. Runs before
 * the migrations, so a project's migrations can grant its tables to the roles. An existing role of
 * the kit's is kept as it is; one the kit did not make, or a privileged one, is refused, and nothing
 * is changed. Roles belong to the cluster, not to one database, so each is created only when missing.
 *
 * @example
 * ```ts
 * await ensureRoles(db, [{ role: 'orders', access: 'consumer' }]); // orders and orders_clone, NOLOGIN
 * ```
 */
export async function ensureRoles(db: Database, roles: readonly ManagedRole[]): Promise<void> {
  if (roles.length === 0) return;
  await db.transaction(async (tx) => {
    for (const { role } of roles) {
      for (const login of loginsOf(role)) await ensureLogin(tx, login);
      await tx.query(sql`GRANT ${sql.identifier(role)} TO ${sql.identifier(twinOf(role))}`);
    }
  });
}
