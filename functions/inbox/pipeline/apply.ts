import {
  classifyExisting,
  claimStatement,
  existingClaimStatement,
  guardedStatement,
  rejectStatement,
  type ClaimTarget,
  type ExistingClaim,
} from '../claim/claim.js';
import type { Database } from '../database/database.js';
import { withTransactionScope } from '../database/transaction-scope.js';
import type { ApplyMode } from '../options.js';
import { NO_OUTBOX, type OutboxBatch } from '../outbox/outbox-batch.js';
import { retry, type RetryPolicy } from '../retry.js';
import { SqlState, sqlStateOf } from '../sql/sql-state.js';
import { ClaimVanishedError } from './errors.js';
import { describeThrown } from './thrown-value.js';
import type { RecordResult } from './prepared-record.js';

const MAX_REASON_LENGTH = 2000;

/** The text recorded for a rejected message. */
function reasonOf(error: unknown): string {
  // PostgreSQL text cannot hold U+0000 (a parse error may quote a value's bytes): written out, so the row can be stored.
  const text = describeThrown(error).replaceAll('\u0000', '\\u0000');
  return text.length > MAX_REASON_LENGTH ? `${text.slice(0, MAX_REASON_LENGTH - 1)}…` : text;
}

async function existing(db: Pick<Database, 'query'>, target: ClaimTarget): Promise<ExistingClaim | undefined> {
  const { rows } = await db.query<{ payload_hash: string; status: string }>(existingClaimStatement(target));
  return classifyExisting(target, rows[0]);
}

/**
 * Records a message as rejected with its reason, in a statement of its own, unless its key is
 * known already (then it is a duplicate or a collision). Never throws: a failure to record is a
 * `failed` result, so the message comes back.
 *
 * @example
 * ```ts
 * await rejectRecord(db, target, new PermanentError('unknown order'), policy) // { kind: 'rejected', error }
 * ```
 */
export async function rejectRecord(db: Database, target: ClaimTarget, reason: unknown, policy: RetryPolicy): Promise<RecordResult> {
  try {
    return await retry(async (): Promise<RecordResult> => {
      const { rows } = await db.query<{ claimed: number }>(rejectStatement(target, reasonOf(reason)));
      if (Number(rows[0]?.claimed) === 1) return { kind: 'rejected', error: reason };
      const found = await existing(db, target);
      if (found === undefined) throw new ClaimVanishedError(target.key);
      return { kind: found.kind };
    }, policy);
  } catch (error) {
    return { kind: 'failed', error };
  }
}

/** One record's claim and effect: what `applyRecord` needs besides the mode. */
export interface RecordClaim<T, R> {
  readonly db: Database;
  readonly message: T;
  readonly record: R;
  readonly target: ClaimTarget;
  readonly policy: RetryPolicy;
  /** Told of each query the handler issues after it returned (refused with `TransactionEndedError`). */
  readonly onLateQuery: () => void;
  /** The batch's outbox, which the message's rows are written to. */
  readonly outbox: OutboxBatch | undefined;
}

async function inStatementMode<T, R>(statement: Extract<ApplyMode<T, R>, { kind: 'statement' }>['statement'], claim: RecordClaim<T, R>): Promise<RecordResult> {
  const { db, message, record, target, policy, outbox } = claim;
  const effect = statement(message, { record, key: target.key });
  const writes = outbox?.inStatement(message, { record, key: target.key });
  try {
    const { rows } = await retry(() => db.query(guardedStatement(target, effect, writes?.addition)), policy);
    writes?.committed(rows[0]);
    return { kind: 'processed' };
  } catch (error) {
    if (sqlStateOf(error) !== SqlState.divisionByZero) throw error;
    // 22012 is the guard's "already claimed", unless the user's statement divided by zero itself.
    const found = await existing(db, target);
    if (found === undefined) throw error;
    return { kind: found.kind };
  }
}

/**
 * The longest a live invocation's transaction can sit idle: no call of it comes after the
 * invocation's end, so PostgreSQL may end the transaction then. A dead invocation (its process
 * killed, or reset at its timeout) sends no rollback, and the Data API would otherwise keep its
 * transaction, and the claim's row lock, for its 3-minute idle timeout.
 */
function idleBound(policy: RetryPolicy): number | undefined {
  const remainingMs = policy.deadline?.remainingMs() ?? Number.POSITIVE_INFINITY;
  return Number.isFinite(remainingMs) ? Math.max(1, Math.ceil(remainingMs)) : undefined;
}

async function inTransactionMode<T, R>(handle: Extract<ApplyMode<T, R>, { kind: 'transaction' }>['handle'], claim: RecordClaim<T, R>): Promise<RecordResult> {
  const { db, message, record, target, policy, onLateQuery, outbox } = claim;
  return retry(async () => {
    let writes: ReturnType<OutboxBatch['inTransaction']> | undefined;
    const result = await db.transaction(async (tx): Promise<RecordResult> => {
      const { rows } = await tx.query<{ claimed: number }>(claimStatement({
        consumer: target.consumer, key: target.key, hash: target.hash, lockTimeoutMs: target.lockTimeoutMs, idleTimeoutMs: idleBound(policy),
      }));
      if (Number(rows[0]?.claimed) !== 1) {
        const found = await existing(tx, target);
        if (found === undefined) throw new ClaimVanishedError(target.key);
        return { kind: found.kind };
      }
      // The handler's queries, its outbox rows included, are the kit's to bound whatever the driver:
      // one still running when handle returns rolls the message back, one issued after is refused and reported.
      await withTransactionScope((statement) => tx.query(statement), (scoped) => {
        writes = outbox?.inTransaction(scoped, target.key);
        return handle(message, { tx: scoped, record, key: target.key, outbox: writes?.context ?? NO_OUTBOX });
      }, onLateQuery);
      return { kind: 'processed' };
    });
    // Only what committed is sent: rows of an attempt that rolled back are gone with it.
    writes?.committed();
    return result;
  }, policy);
}

/**
 * Claims the record's key and applies its effect in one transaction (transaction mode) or one
 * guarded statement (statement mode), retrying transient errors in place. With the batch's
 * `outbox`, the message's outgoing rows are written in the same transaction or statement, and kept
 * for the send after the commit once it committed. Resolves to processed, duplicate or collision;
 * throws what the handler or the database threw, `UnawaitedQueryError` when `handle` returned with
 * queries still running.
 *
 * @example
 * ```ts
 * await applyRecord(options.mode, { db, message: order, record, target, policy, outbox, onLateQuery: () => logger.error('late query') }) // { kind: 'processed' }
 * ```
 */
export function applyRecord<T, R>(mode: ApplyMode<T, R>, claim: RecordClaim<T, R>): Promise<RecordResult> {
  return mode.kind === 'statement' ? inStatementMode(mode.statement, claim) : inTransactionMode(mode.handle, claim);
}
