import type { DatabaseRoleAccess } from '../contract.js';
import { sql, type SqlIdentifier, type SqlStatement } from '../sql/sql.js';

/**
 * What each kind of role may do on the kit's own tables, and nothing more. A project's own tables
 * are granted by the project's migrations.
 *
 * - A consumer claims and rejects with INSERT ... ON CONFLICT DO NOTHING and reads a known key's row
 *   (duplicate or collision); it never updates or deletes an inbox row. It writes its outbox rows in
 *   the claim's transaction (a FIFO group's row numbered and leased in the same statement), then
 *   marks what it sent after the commit: dispatched, or failed with a reason. It never takes
 *   another's lease nor deletes a row.
 * - The cleanup deletes rows past their retention, picked with SELECT ... FOR UPDATE SKIP LOCKED,
 *   which PostgreSQL allows only with UPDATE on a column: it gets the one each row is judged by
 *   (changing it can only make a row go sooner or later, which its DELETE allows anyway), and reads
 *   a row's key and age, not its hash, error, body or attributes; on the outbox, dispatched rows
 *   and idle groups. It records its last run in kit_run.
 * - The outbox relay leases rows and groups whose lease ran out (FOR UPDATE SKIP LOCKED), reads
 *   them and marks them; it writes no row, deletes none, and never touches the inbox. It records its
 *   last run in kit_run.
 * - A consumer keeps what it rejects, and a collision's body, with one INSERT into kept_message; the
 *   cleanup deletes kept rows past their own retention. The operator reads kept rows and records
 *   their replays; to replay a rejected message it deletes its rejected inbox row, or the
 *   redelivery would be a duplicate. It reads the outbox and sends a failed row again (its failed
 *   mark cleared, its FIFO group's open count raised, or the group made again when the cleanup purged
 *   it), deletes kept messages and failed or dispatched outbox rows it is told to purge, reads the
 *   cleanup's and the relays' last runs, and writes an audit row with each change; it reads and
 *   writes no table of the project's.
 */
const KIT_GRANTS: Readonly<Record<DatabaseRoleAccess, (role: SqlIdentifier) => SqlStatement[]>> = {
  consumer: (role) => [
    sql`GRANT SELECT, INSERT ON consumed_message TO ${role}`,
    sql`GRANT SELECT, INSERT ON outbox_message TO ${role}`,
    sql`GRANT UPDATE (claimed_until, dispatched_at, failed_at, error) ON outbox_message TO ${role}`,
    sql`GRANT SELECT, INSERT ON outbox_group TO ${role}`,
    sql`GRANT UPDATE (next_seq, open_rows, holder, held_until, touched_at) ON outbox_group TO ${role}`,
    sql`GRANT INSERT ON kept_message TO ${role}`,
  ],
  cleanup: (role) => [
    sql`GRANT SELECT (consumer_name, message_id, processed_at), DELETE ON consumed_message TO ${role}`,
    sql`GRANT UPDATE (processed_at) ON consumed_message TO ${role}`,
    sql`GRANT SELECT (id, dispatched_at), DELETE ON outbox_message TO ${role}`,
    sql`GRANT UPDATE (dispatched_at) ON outbox_message TO ${role}`,
    sql`GRANT SELECT (consumer_name, target, group_id, open_rows, touched_at), DELETE ON outbox_group TO ${role}`,
    sql`GRANT UPDATE (touched_at) ON outbox_group TO ${role}`,
    sql`GRANT SELECT (id, kept_at), DELETE ON kept_message TO ${role}`,
    sql`GRANT UPDATE (kept_at) ON kept_message TO ${role}`,
    sql`GRANT SELECT, INSERT, UPDATE (ran_at, report) ON kit_run TO ${role}`,
  ],
  relay: (role) => [
    sql`GRANT SELECT ON outbox_message TO ${role}`,
    sql`GRANT UPDATE (claimed_by, claimed_until, attempts, dispatched_at, failed_at, error) ON outbox_message TO ${role}`,
    sql`GRANT SELECT ON outbox_group TO ${role}`,
    sql`GRANT UPDATE (open_rows, holder, held_until, touched_at) ON outbox_group TO ${role}`,
    sql`GRANT SELECT, INSERT, UPDATE (ran_at, report) ON kit_run TO ${role}`,
  ],
  operator: (role) => [
    sql`GRANT SELECT, DELETE ON kept_message TO ${role}`,
    sql`GRANT UPDATE (replay_state, replays, replayed_at, replay_error) ON kept_message TO ${role}`,
    sql`GRANT SELECT, DELETE ON consumed_message TO ${role}`,
    sql`GRANT SELECT, DELETE ON outbox_message TO ${role}`,
    sql`GRANT UPDATE (claimed_by, claimed_until, failed_at) ON outbox_message TO ${role}`,
    sql`GRANT SELECT, INSERT ON outbox_group TO ${role}`,
    sql`GRANT UPDATE (open_rows, touched_at) ON outbox_group TO ${role}`,
    sql`GRANT SELECT, INSERT ON operator_audit TO ${role}`,
    sql`GRANT SELECT ON kit_run TO ${role}`,
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
