import { sql, type SqlStatement } from '../sql/sql.js';
import { keepFrom, type KeptMessage } from './kept-message.js';

/** Who claims what: the inbox row's key and the body's hash. */
export interface ClaimTarget {
  readonly consumer: string;
  readonly key: string;
  readonly hash: string;
  readonly lockTimeoutMs: number;
  /**
   * Transaction mode: how long the claim's transaction may sit idle between calls before PostgreSQL
   * ends it (`idle_in_transaction_session_timeout`), so the claim's locks do not outlive a dead invocation.
   * @default unbounded
   */
  readonly idleTimeoutMs?: number;
  /**
   * What to keep of the message when it is rejected or collides (its body, what a replay needs),
   * asked only then.
   * @default nothing is kept
   */
  readonly kept?: () => KeptMessage;
}

/** What a known key's row says when the claim finds it taken. */
export type ExistingClaim = { kind: 'duplicate' | 'collision'; status: string };

/**
 * The claim with its bounded lock wait: `lock_timeout` is set for the transaction in a CTE that the
 * INSERT reads first, so the wait on an in-flight claim of the same key (and every later statement
 * of the transaction) gives up at the timeout. Returns `claimed = 1` for a fresh claim, else 0.
 */
function claimCtes(target: ClaimTarget, status: 'processed' | 'rejected', error: string | null): SqlStatement {
  const idle = target.idleTimeoutMs === undefined
    ? sql``
    : sql`, set_config('idle_in_transaction_session_timeout', ${`${target.idleTimeoutMs}ms`}, true) AS idle_timeout`;
  return sql`WITH inbox_cfg AS (SELECT set_config('lock_timeout', ${`${target.lockTimeoutMs}ms`}, true) AS lock_timeout${idle}),
inbox_claim AS (
  INSERT INTO consumed_message (consumer_name, message_id, payload_hash, status, error)
  SELECT ${target.consumer}, ${target.key}, ${target.hash}, ${status}, ${error} FROM inbox_cfg
  ON CONFLICT (consumer_name, message_id) DO NOTHING
  RETURNING 1
)`;
}

/**
 * The claim of transaction mode, as one statement. With `idleTimeoutMs` it also bounds how long the
 * transaction may then sit idle: on the Data API a dead invocation's transaction is not rolled back
 * until the service's 3-minute idle timeout, and until then every copy or redelivery of its message
 * waits out `lock_timeout` on the claim and fails.
 *
 * @example
 * ```ts
 * const { rows } = await tx.query<{ claimed: number }>(claimStatement(target)); // rows[0].claimed: 1 fresh, 0 taken
 * ```
 */
export function claimStatement(target: ClaimTarget): SqlStatement {
  return sql`${claimCtes(target, 'processed', null)}
SELECT (SELECT count(*)::int FROM inbox_claim) AS claimed`;
}

/**
 * Records a rejected message (its own statement, autocommitted), unless its key is already known;
 * with the target's `kept`, keeps its body and what a replay needs in the same statement.
 *
 * @example
 * ```ts
 * await db.query(rejectStatement(target, 'PermanentError: unknown order'));
 * ```
 */
export function rejectStatement(target: ClaimTarget, reason: string): SqlStatement {
  const keep = target.kept === undefined
    ? sql``
    : sql`,
inbox_kept AS (${keepFrom({ consumer: target.consumer, key: target.key, keptAs: 'rejected', reason, kept: target.kept() }, sql`inbox_claim`)})`;
  return sql`${claimCtes(target, 'rejected', reason)}${keep}
SELECT (SELECT count(*)::int FROM inbox_claim) AS claimed`;
}

/**
 * More of a guarded statement (the outbox's rows): CTEs after the effect, which read `claimed` (the
 * claim's RETURNING, one row on a fresh claim) so they write nothing for a taken key, and columns
 * of its answer.
 */
export interface GuardedAddition {
  readonly ctes: SqlStatement;
  readonly columns: SqlStatement;
}

/**
 * Statement mode: the claim and the user's effect in one statement. Data-modifying CTEs always run,
 * so when the key is taken the statement divides by zero (SQLSTATE 22012) and nothing of it,
 * the effect included, survives; the payload hash then tells duplicate from collision.
 * `addition` (the outbox's rows) adds CTEs that read the claim's rows, so they write nothing for a
 * taken key, and columns to the answer.
 *
 * @example
 * ```ts
 * await db.query(guardedStatement(target, sql`UPDATE orders SET status = 'shipped' WHERE order_id = ${id}`));
 * ```
 */
export function guardedStatement(target: ClaimTarget, effect: SqlStatement, addition?: (claimed: SqlStatement) => GuardedAddition): SqlStatement {
  const more = addition?.(sql`inbox_claim`);
  return sql`${claimCtes(target, 'processed', null)},
inbox_effect AS (${effect})${more ? sql`,
${more.ctes}` : sql``}
SELECT 1 / (SELECT count(*)::int FROM inbox_claim) AS claimed${more ? sql`, ${more.columns}` : sql``}`;
}

/**
 * Reads the row that holds a key, to tell a duplicate from a collision; with the target's `kept`,
 * a collision's body is kept in the same statement (in transaction mode, the claim's transaction),
 * so the producer bug it reveals can be investigated from what was sent.
 *
 * @example
 * ```ts
 * const { rows } = await db.query<{ payload_hash: string; status: string }>(existingClaimStatement(target));
 * ```
 */
export function existingClaimStatement(target: ClaimTarget): SqlStatement {
  const found = sql`SELECT payload_hash, status FROM consumed_message WHERE consumer_name = ${target.consumer} AND message_id = ${target.key}`;
  if (target.kept === undefined) return found;
  const reason = `a known key with another body (this body's sha-256: ${target.hash})`;
  const collided = sql`inbox_found WHERE payload_hash <> ${target.hash}`;
  return sql`WITH inbox_found AS (${found}),
inbox_kept AS (${keepFrom({ consumer: target.consumer, key: target.key, keptAs: 'collision', reason, kept: target.kept() }, collided)})
SELECT payload_hash, status FROM inbox_found`;
}

/**
 * Duplicate when the stored hash matches the body's, collision otherwise; undefined when no row holds the key.
 *
 * @example
 * ```ts
 * classifyExisting(target, rows[0]) // { kind: 'duplicate', status: 'processed' }
 * ```
 */
export function classifyExisting(target: ClaimTarget, row: { payload_hash: string; status: string } | undefined): ExistingClaim | undefined {
  if (row === undefined) return undefined;
  return { kind: row.payload_hash === target.hash ? 'duplicate' : 'collision', status: row.status };
}
