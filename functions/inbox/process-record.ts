import type { SQSRecord } from 'aws-lambda';
import {
  classifyExisting,
  claimStatement,
  existingClaimStatement,
  guardedStatement,
  rejectStatement,
  type ClaimTarget,
  type ExistingClaim,
} from './claim.js';
import type { Database } from './database.js';
import { InboxError } from './errors.js';
import type { KeyResult } from './message-key.js';
import type { ResolvedOptions } from './options.js';
import type { OutcomeKind } from './outcome.js';
import { SqlState, sqlStateOf } from './sql-state.js';
import { withRetries, type RetryPolicy } from './transient.js';
import { DEFAULTS } from './options.js';

/** A record with what the kit worked out before touching the database. */
export interface PreparedRecord {
  readonly record: SQSRecord;
  readonly groupId: string | undefined;
  readonly key: KeyResult;
  readonly hash: string;
}

/** What became of a record, before its duration is added. */
export interface RecordResult {
  kind: OutcomeKind;
  error?: unknown;
}

const MAX_REASON_LENGTH = 2000;

/**
 * The claim found no row for a key it could not take: the holder vanished in between (a cleanup,
 * say). The message fails and is tried again.
 */
export class ClaimVanishedError extends InboxError {
  public constructor(key: string) {
    super(`The inbox row for key "${key}" was taken and then gone; the message will be retried.`);
    this.name = 'ClaimVanishedError';
  }
}

function isPermanent(error: unknown): boolean {
  return error instanceof Error && error.name === 'PermanentError';
}

/** The text recorded for a rejected message. */
function reasonOf(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.length > MAX_REASON_LENGTH ? `${text.slice(0, MAX_REASON_LENGTH - 1)}…` : text;
}

async function existing(db: Pick<Database, 'query'>, target: ClaimTarget): Promise<ExistingClaim | undefined> {
  const { rows } = await db.query<{ payload_hash: string; status: string }>(existingClaimStatement(target));
  return classifyExisting(target, rows[0]);
}

async function reject(db: Database, target: ClaimTarget, reason: unknown, retry: RetryPolicy): Promise<RecordResult> {
  try {
    const outcome = await withRetries(async () => {
      const { rows } = await db.query<{ claimed: number }>(rejectStatement(target, reasonOf(reason)));
      if (Number(rows[0]?.claimed) === 1) return { kind: 'rejected', error: reason } as const;
      const found = await existing(db, target);
      if (found === undefined) throw new ClaimVanishedError(target.key);
      return { kind: found.kind };
    }, retry);
    return outcome;
  } catch (error) {
    return { kind: 'failed', error };
  }
}

async function runStatementMode<T>(message: T, prepared: PreparedRecord, target: ClaimTarget, options: ResolvedOptions<T>, retry: RetryPolicy): Promise<RecordResult> {
  const effect = options.statement!(message, { record: prepared.record, key: target.key });
  try {
    await withRetries(() => options.db.query(guardedStatement(target, effect)), retry);
    return { kind: 'processed' };
  } catch (error) {
    if (sqlStateOf(error) !== SqlState.divisionByZero) throw error;
    // 22012 is the guard's "already claimed", unless the user's statement divided by zero itself.
    const found = await existing(options.db, target);
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
function idleBound(remainingMs: number): number | undefined {
  return Number.isFinite(remainingMs) ? Math.max(1, Math.ceil(remainingMs)) : undefined;
}

async function runTransactionMode<T>(message: T, prepared: PreparedRecord, target: ClaimTarget, options: ResolvedOptions<T>, retry: RetryPolicy): Promise<RecordResult> {
  return withRetries(() => options.db.transaction(async (tx): Promise<RecordResult> => {
    const { rows } = await tx.query<{ claimed: number }>(claimStatement({ ...target, idleTimeoutMs: idleBound(retry.remainingMs()) }));
    if (Number(rows[0]?.claimed) !== 1) {
      const found = await existing(tx, target);
      if (found === undefined) throw new ClaimVanishedError(target.key);
      return { kind: found.kind };
    }
    await options.handle!(message, { tx, record: prepared.record, key: target.key });
    return { kind: 'processed' };
  }), retry);
}

/**
 * Takes one record through the design's rule: key and parse (a failure rejects), then one
 * transaction or one guarded statement that claims and applies, then duplicate, collision,
 * rejected (PermanentError) or failed. Never throws: every path ends in a result.
 *
 * @example
 * ```ts
 * const result = await processRecord(prepared, options, retryPolicy); // { kind: 'processed' }
 * ```
 */
export async function processRecord<T>(prepared: PreparedRecord, options: ResolvedOptions<T>, retry: RetryPolicy): Promise<RecordResult> {
  const base = { consumer: options.consumer, hash: prepared.hash, lockTimeoutMs: options.lockTimeoutMs };
  if (!prepared.key.ok) {
    return reject(options.db, { ...base, key: prepared.record.messageId }, prepared.key.error, retry);
  }
  const target: ClaimTarget = { ...base, key: prepared.key.key };
  let message: T;
  try {
    message = options.parse ? await options.parse(prepared.record) : (JSON.parse(prepared.record.body) as T);
  } catch (error) {
    return reject(options.db, target, error, retry);
  }
  try {
    return options.statement
      ? await runStatementMode(message, prepared, target, options, retry)
      : await runTransactionMode(message, prepared, target, options, retry);
  } catch (error) {
    if (isPermanent(error)) return reject(options.db, target, error, retry);
    return { kind: 'failed', error };
  }
}

/**
 * The retry policy of one invocation, from the options and the Lambda context's clock.
 *
 * @example
 * ```ts
 * const retry = retryPolicy(options, () => context.getRemainingTimeInMillis());
 * ```
 */
export function retryPolicy(options: ResolvedOptions<unknown>, remainingMs: () => number): RetryPolicy {
  return { maxRetries: options.maxRetries, baseMs: DEFAULTS.retryBaseMs, remainingMs, marginMs: options.deadlineMarginMs };
}
