import type { Database, Transaction } from '../database/database.js';
import { KIT_ROLE_NAME, ROLE_TWIN_SUFFIX, type DatabaseRoleAccess } from '../contract.js';
import { sql, SqlStatement } from '../sql/sql.js';
import { DatabaseRoleError } from './errors.js';

/** A database role of the kit's: its name, and what it may do on the kit's tables. */
export interface InboxRole {
  /** 1 to 57 lower-case letters, digits or `_`; its twin is `<role>_clone`. */
  readonly role: string;
  readonly access: DatabaseRoleAccess;
}

/**
 * The comment each role the kit makes carries, by which the kit knows its own roles again: a role of
 * that name that lacks it belongs to someone else, and the kit never takes it over.
 */
export const KIT_ROLE_COMMENT = 'Made by sqs-inbox (InboxDatabase): its password comes from a Secrets Manager secret.';

/**
 * Refuses, before the database is touched, a role name the kit would not make: not 1 to 57
 * lower-case letters, digits or `_`, or a twin's name. Returns the role and its twin.
 */
function loginsOf(role: string): readonly [string, string] {
  if (!KIT_ROLE_NAME.test(role) || role.endsWith(ROLE_TWIN_SUFFIX)) {
    throw new DatabaseRoleError(`${JSON.stringify(role)} cannot be a role of the kit's: a role is 1 to 57 lower-case letters, digits or _, not starting `
      + `with a digit and not ending in ${ROLE_TWIN_SUFFIX} (its twin adds ${ROLE_TWIN_SUFFIX} within PostgreSQL's 63 characters).`);
  }
  return [role, `${role}${ROLE_TWIN_SUFFIX}`];
}

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
 * role) where missing, NOLOGIN and marked with `KIT_ROLE_COMMENT`, in one transaction. An existing
 * role of the kit's is kept as it is; a name the kit would not make, a role it did not make, or a
 * privileged one is refused, and nothing is changed. Roles belong to the cluster, not to one
 * database, so each is created only when missing.
 *
 * @example
 * ```ts
 * await ensureRoles(db, [{ role: 'orders', access: 'consumer' }]); // orders and orders_clone, NOLOGIN
 * ```
 */
export async function ensureRoles(db: Database, roles: readonly InboxRole[]): Promise<void> {
  const logins = roles.map(({ role }) => loginsOf(role));
  if (logins.length === 0) return;
  await db.transaction(async (tx) => {
    for (const [role, twin] of logins) {
      for (const login of [role, twin]) await ensureLogin(tx, login);
      await tx.query(sql`GRANT ${sql.identifier(role)} TO ${sql.identifier(twin)}`);
    }
  });
}
