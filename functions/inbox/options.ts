import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { SQSRecord } from 'aws-lambda';
import type { Database, Transaction } from './database.js';
import { InboxConfigError } from './errors.js';
import type { Outcome } from './outcome.js';
import type { SqlStatement } from './sql.js';

/**
 * What a handler is given beside the parsed message.
 *
 * @example
 * ```ts
 * handle: async (order, { tx, key, record }) => { await tx.query(sql`... ${key} ... ${record.messageId}`); }
 * ```
 */
export interface MessageContext {
  /** The claim's transaction: commit and roll back are the kit's. */
  tx: Transaction;
  /** The SQS record as it arrived. */
  record: SQSRecord;
  /** The idempotency key the message was claimed under. */
  key: string;
}

/**
 * What `inbox()` and `processBatch()` take. Give `handle` (transaction mode) or `statement`
 * (statement mode: one round trip a message), not both.
 *
 * @example
 * ```ts
 * const options: InboxOptions<Order> = {
 *   consumer: 'ship-orders',
 *   db: dataApiDatabaseFromEnv(),
 *   statement: (order) => sql`UPDATE orders SET status = 'shipped' WHERE order_id = ${sql.uuid(order.id)}`,
 * };
 * ```
 */
export interface InboxOptions<T> {
  /** The consumer_name the claims are recorded under; one per logical consumer. */
  readonly consumer: string;
  /** Where claims and effects commit: `dataApiDatabase(...)` or `pgDatabase(...)`. */
  readonly db: Database;
  /** Transaction mode: runs inside the claim's transaction. */
  readonly handle?: (message: T, ctx: MessageContext) => Promise<void>;
  /** Statement mode: the effect as one statement, composed with the claim; the context has no `tx`. */
  readonly statement?: (message: T, ctx: Omit<MessageContext, 'tx'>) => SqlStatement;
  /**
   * Turns a record into the message; a throw rejects the message.
   * @default JSON.parse(record.body)
   */
  readonly parse?: (record: SQSRecord) => T | Promise<T>;
  /**
   * The idempotency key of a record.
   * @default the `idempotency-key` message attribute, else `attributes.MessageDeduplicationId`, else `messageId`
   */
  readonly key?: (record: SQSRecord) => string;
  /**
   * Messages (standard queue) or message groups (FIFO) in flight at once.
   * @default 10
   */
  readonly concurrency?: number;
  /**
   * What a failure in a FIFO batch skips: the rest of its group, or the rest of the batch.
   * @default 'group'
   */
  readonly fifoFailure?: 'group' | 'batch';
  /**
   * How long a claim or effect waits on a row lock before the message fails.
   * @default 5000
   */
  readonly lockTimeoutMs?: number;
  /**
   * A message is not started when less than this is left of the invocation.
   * @default 5000
   */
  readonly deadlineMarginMs?: number;
  /**
   * In-place retries of serialization failures, deadlocks and a resuming database.
   * @default 3
   */
  readonly maxRetries?: number;
  /**
   * Called once per record with what became of it; a throw here is logged and ignored.
   * @default none
   */
  readonly onOutcome?: (outcome: Outcome) => void;
  /**
   * A Powertools Logger for one structured line per record.
   * @default none: silent
   */
  readonly logger?: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;
  /**
   * A Powertools Metrics for a count per outcome and the processing latency.
   * @default none
   */
  readonly metrics?: Pick<Metrics, 'addMetric'>;
}

/** The defaults of every optional option, in one place. */
export const DEFAULTS = {
  concurrency: 10,
  fifoFailure: 'group',
  lockTimeoutMs: 5000,
  deadlineMarginMs: 5000,
  maxRetries: 3,
  retryBaseMs: 50,
  maxKeyLength: 512,
  idempotencyKeyAttribute: 'idempotency-key',
} as const;

/** Options after defaults are merged and every value checked. */
export type ResolvedOptions<T> = InboxOptions<T> & {
  readonly concurrency: number;
  readonly fifoFailure: 'group' | 'batch';
  readonly lockTimeoutMs: number;
  readonly deadlineMarginMs: number;
  readonly maxRetries: number;
};

const CONSUMER = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/;

function requireInteger(name: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new InboxConfigError(`${name} must be a whole number from ${min} to ${max}, but ${String(value)} was given.`);
  }
}

/**
 * Merges the defaults into `options` once and checks them, so a mistake is refused when the handler
 * is built rather than message by message.
 *
 * @example
 * ```ts
 * const resolved = resolveOptions({ consumer: 'orders', db, handle }); // resolved.concurrency === 10
 * ```
 */
export function resolveOptions<T>(options: InboxOptions<T>): ResolvedOptions<T> {
  if (typeof options !== 'object' || options === null) throw new InboxConfigError('inbox options are required.');
  const resolved = {
    ...options,
    concurrency: options.concurrency ?? DEFAULTS.concurrency,
    fifoFailure: options.fifoFailure ?? DEFAULTS.fifoFailure,
    lockTimeoutMs: options.lockTimeoutMs ?? DEFAULTS.lockTimeoutMs,
    deadlineMarginMs: options.deadlineMarginMs ?? DEFAULTS.deadlineMarginMs,
    maxRetries: options.maxRetries ?? DEFAULTS.maxRetries,
  };
  if (typeof resolved.consumer !== 'string' || !CONSUMER.test(resolved.consumer)) {
    throw new InboxConfigError(`consumer must be 1 to 128 letters, digits or ._:/- starting with a letter or digit, but "${String(resolved.consumer)}" was given.`);
  }
  if (!resolved.db || typeof resolved.db.transaction !== 'function' || typeof resolved.db.query !== 'function') {
    throw new InboxConfigError('db must be a Database: pass pgDatabase(...) or dataApiDatabase(...).');
  }
  if ((resolved.handle === undefined) === (resolved.statement === undefined)) {
    throw new InboxConfigError('Give exactly one of handle (transaction mode) or statement (statement mode).');
  }
  requireInteger('concurrency', resolved.concurrency, 1, 1000);
  requireInteger('lockTimeoutMs', resolved.lockTimeoutMs, 1, 60_000);
  requireInteger('deadlineMarginMs', resolved.deadlineMarginMs, 0, 900_000);
  requireInteger('maxRetries', resolved.maxRetries, 0, 10);
  if (resolved.fifoFailure !== 'group' && resolved.fifoFailure !== 'batch') {
    throw new InboxConfigError(`fifoFailure must be 'group' or 'batch', but "${String(resolved.fifoFailure)}" was given.`);
  }
  return resolved;
}
