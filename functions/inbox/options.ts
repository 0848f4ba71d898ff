import type { SQSRecord } from 'aws-lambda';
import type { Database, Transaction } from './database/database.js';
import { INBOX_ENV, MAX_KEY_LENGTH, TIME_DEFAULTS } from './contract.js';
import { ConsumerNameMismatchError, ConsumerNameMissingError, InboxConfigError } from './errors.js';
import type { Outcome } from './outcome.js';
import { resolveOutbox, type OutboxContext, type OutboxOptions, type ResolvedOutbox, type StatementOutboxOptions } from './outbox/outbox-options.js';
import type { SqlStatement } from './sql/sql.js';
import type { StatementContext } from './statement-context.js';
import type { InboxLogger, InboxMetrics } from './telemetry.js';

/**
 * What a handler is given beside the parsed message. `R` is the record type of the event source:
 * an `SQSRecord`, or a `KafkaRecord` on the Kafka entry points; `K` the names of the outbox's targets.
 *
 * @example
 * ```ts
 * handle: async (order, { tx, key, record }) => { await tx.query(sql`... ${key} ... ${record.messageId}`); }
 * ```
 */
export interface MessageContext<R = SQSRecord, K extends string = string> extends StatementContext<R> {
  /**
   * The claim's transaction: commit and roll back are the kit's. It serves queries while `handle`
   * runs: one still running when `handle` returns fails the message (`UnawaitedQueryError`), one
   * issued after is refused (`TransactionEndedError`) and logged.
   */
  tx: Transaction;
  /** Writes outgoing messages in the claim's transaction, sent after the commit (the `outbox` option's targets). */
  outbox: OutboxContext<K>;
}

/** The options of both modes, on every event source. */
export interface InboxCommonOptions<T, R = SQSRecord> {
  /**
   * The consumer_name the claims are recorded under; one per logical consumer. Where the consumer
   * construct deployed the function, a name other than its `serviceName` fails every invocation
   * (`ConsumerNameMismatchError`).
   * @default INBOX_CONSUMER, which the InboxConsumer and InboxKafkaConsumer constructs set to their `serviceName`
   */
  readonly consumer?: string;
  /** Where claims and effects commit: `dataApiDatabase(...)` or `pgDatabase(...)`. */
  readonly db: Database;
  /**
   * Turns a record into the message; a throw rejects the message.
   * @default JSON.parse of the body (SQS) or of the UTF-8 value (Kafka)
   */
  readonly parse?: (record: R) => T | Promise<T>;
  /**
   * The idempotency key of a record.
   * @default SQS: the `idempotency-key` message attribute, else the key of an EventBridge event or
   * SNS notification the body is, else `attributes.MessageDeduplicationId`, else `messageId`; Kafka: the `idempotency-key` header, else `<topic>:<partition>:<offset>`
   */
  readonly key?: (record: R) => string;
  /**
   * Reject (record and acknowledge, never apply) a message whose default key is a fallback that a
   * DLQ redrive changes (its MessageDeduplicationId or messageId): only the `idempotency-key`
   * attribute survives a redrive. Has no effect with a `key` function, nor on Kafka.
   * @default true when INBOX_REQUIRE_KEY_ATTRIBUTE is `true` (the InboxConsumer's `requireIdempotencyKey` sets it), else false
   */
  readonly requireKeyAttribute?: boolean;
  /**
   * Messages (standard queue) or ordered lanes (FIFO message groups, Kafka partitions) in flight at once.
   * @default 10
   */
  readonly concurrency?: number;
  /**
   * What a failure in an ordered lane (a FIFO message group, a Kafka partition) holds back: the rest
   * of its lane, or every ordered record of the batch not yet started. Unordered records (a
   * standard queue) are never held back.
   * @default 'lane'
   */
  readonly laneFailure?: 'lane' | 'batch';
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
   * A logger (Powertools `Logger`) for one structured line per record.
   * @default none: silent
   */
  readonly logger?: InboxLogger;
  /**
   * Metrics (Powertools `Metrics`) for a count per outcome and the processing latency.
   * @default none
   */
  readonly metrics?: InboxMetrics;
}

/** Transaction mode: `handle` runs inside the claim's transaction. */
export interface TransactionModeOptions<T, R = SQSRecord, K extends string = string> extends InboxCommonOptions<T, R> {
  /** Runs inside the claim's transaction, only on a fresh claim; a throw rolls the claim back. */
  readonly handle: (message: T, ctx: MessageContext<R, K>) => Promise<void>;
  readonly statement?: never;
  /**
   * Targets of `ctx.outbox.send`: messages sent on exactly when this message's effect commits.
   * @default none: `ctx.outbox.send` throws
   */
  readonly outbox?: OutboxOptions<K> & { readonly messages?: never };
}

/** Statement mode: the effect is one statement, composed with the claim (one round trip a message). */
export interface StatementModeOptions<T, R = SQSRecord, K extends string = string> extends InboxCommonOptions<T, R> {
  /** The effect as one statement; the kit makes it survive only with a fresh claim. */
  readonly statement: (message: T, ctx: StatementContext<R>) => SqlStatement;
  readonly handle?: never;
  /**
   * Messages sent on exactly when this message's statement commits, written by CTEs of the same statement.
   * @default none
   */
  readonly outbox?: StatementOutboxOptions<T, R, K>;
}

/**
 * What `inbox()` and `processBatch()` take: `handle` (transaction mode) or `statement` (statement
 * mode: one round trip a message), never both; giving both or neither does not compile. `K`, the
 * names of the outbox's targets, is inferred from `outbox.targets` where the options are (a call
 * without explicit type arguments, or `inbox<Order, 'shipped'>`): a message to another target then
 * does not compile. `string` by default, and `OutboxTargetError` at run time in every case.
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
export type InboxOptions<T, R = SQSRecord, K extends string = string> = TransactionModeOptions<T, R, K> | StatementModeOptions<T, R, K>;

/** The defaults of every optional option, in one place. */
export const DEFAULTS = {
  concurrency: 10,
  laneFailure: 'lane',
  lockTimeoutMs: TIME_DEFAULTS.lockTimeoutMs,
  deadlineMarginMs: TIME_DEFAULTS.deadlineMarginMs,
  maxRetries: 3,
  maxKeyLength: MAX_KEY_LENGTH,
} as const;

/** How a record's effect is applied, with the user's function for it. */
export type ApplyMode<T, R> =
  | { readonly kind: 'transaction'; readonly handle: TransactionModeOptions<T, R>['handle'] }
  | { readonly kind: 'statement'; readonly statement: StatementModeOptions<T, R>['statement'] };

/** Options after defaults are merged and every value checked. */
export interface ResolvedOptions<T, R> {
  readonly consumer: string;
  readonly db: Database;
  readonly mode: ApplyMode<T, R>;
  readonly parse: ((record: R) => T | Promise<T>) | undefined;
  readonly key: ((record: R) => string) | undefined;
  readonly requireKeyAttribute: boolean;
  readonly concurrency: number;
  readonly laneFailure: 'lane' | 'batch';
  readonly lockTimeoutMs: number;
  readonly deadlineMarginMs: number;
  readonly maxRetries: number;
  readonly onOutcome: ((outcome: Outcome) => void) | undefined;
  readonly logger: InboxLogger | undefined;
  readonly metrics: InboxMetrics | undefined;
  readonly outbox: ResolvedOutbox | undefined;
}

const CONSUMER = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/;

function requireInteger(name: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new InboxConfigError(`${name} must be a whole number from ${min} to ${max}, but ${String(value)} was given.`);
  }
}

function optionalFunction<F>(name: string, value: F | undefined): F | undefined {
  if (value !== undefined && typeof value !== 'function') throw new InboxConfigError(`${name} must be a function, but ${typeof value} was given.`);
  return value;
}

// The types forbid both-or-neither; JavaScript callers and casts still need the check.
function modeOf<T, R>(options: InboxOptions<T, R>): ApplyMode<T, R> {
  const { handle, statement } = options as { handle?: unknown; statement?: unknown };
  if ((handle === undefined) === (statement === undefined)) {
    throw new InboxConfigError('Give exactly one of handle (transaction mode) or statement (statement mode).');
  }
  if (typeof (handle ?? statement) !== 'function') {
    throw new InboxConfigError(`${handle !== undefined ? 'handle' : 'statement'} must be a function.`);
  }
  return handle !== undefined
    ? { kind: 'transaction', handle: handle as TransactionModeOptions<T, R>['handle'] }
    : { kind: 'statement', statement: statement as StatementModeOptions<T, R>['statement'] };
}

/** The consumer name the construct deployed the function as, when it did. */
function deployedConsumer(): string | undefined {
  const name = (process.env[INBOX_ENV.consumer] ?? '').trim();
  return name === '' ? undefined : name;
}

function throwMissingConsumer(): never {
  throw new ConsumerNameMissingError(INBOX_ENV.consumer);
}

/**
 * Refuses a `consumer` option other than the name the construct deployed the function as: called
 * by each invocation before any record, so the whole batch fails and nothing is acknowledged.
 *
 * @example
 * ```ts
 * checkDeployedConsumer(options.consumer); // throws ConsumerNameMismatchError when INBOX_CONSUMER differs
 * ```
 */
export function checkDeployedConsumer(consumer: string): void {
  const deployed = deployedConsumer();
  if (deployed !== undefined && deployed !== consumer) throw new ConsumerNameMismatchError(consumer, deployed, INBOX_ENV.consumer);
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
export function resolveOptions<T, R>(options: InboxOptions<T, R>): ResolvedOptions<T, R> {
  if (typeof options !== 'object' || options === null) throw new InboxConfigError('inbox options are required.');
  const mode = modeOf(options);
  const resolved: ResolvedOptions<T, R> = {
    consumer: options.consumer ?? deployedConsumer() ?? throwMissingConsumer(),
    db: options.db,
    mode,
    parse: optionalFunction('parse', options.parse),
    key: optionalFunction('key', options.key),
    requireKeyAttribute: options.requireKeyAttribute ?? process.env[INBOX_ENV.requireKeyAttribute] === 'true',
    concurrency: options.concurrency ?? DEFAULTS.concurrency,
    laneFailure: options.laneFailure ?? DEFAULTS.laneFailure,
    lockTimeoutMs: options.lockTimeoutMs ?? DEFAULTS.lockTimeoutMs,
    deadlineMarginMs: options.deadlineMarginMs ?? DEFAULTS.deadlineMarginMs,
    maxRetries: options.maxRetries ?? DEFAULTS.maxRetries,
    onOutcome: optionalFunction('onOutcome', options.onOutcome),
    logger: options.logger,
    metrics: options.metrics,
    outbox: resolveOutbox(options.outbox, mode.kind),
  };
  if (typeof resolved.consumer !== 'string' || !CONSUMER.test(resolved.consumer)) {
    throw new InboxConfigError(`consumer must be 1 to 128 letters, digits or ._:/- starting with a letter or digit, but "${String(resolved.consumer)}" was given.`);
  }
  if (!resolved.db || typeof resolved.db.transaction !== 'function' || typeof resolved.db.query !== 'function') {
    throw new InboxConfigError('db must be a Database: pass pgDatabase(...) or dataApiDatabase(...).');
  }
  if (typeof resolved.requireKeyAttribute !== 'boolean') {
    throw new InboxConfigError(`requireKeyAttribute must be true or false, but ${String(resolved.requireKeyAttribute)} was given.`);
  }
  requireInteger('concurrency', resolved.concurrency, 1, 1000);
  requireInteger('lockTimeoutMs', resolved.lockTimeoutMs, 1, 60_000);
  requireInteger('deadlineMarginMs', resolved.deadlineMarginMs, 0, 900_000);
  requireInteger('maxRetries', resolved.maxRetries, 0, 10);
  if (resolved.laneFailure !== 'lane' && resolved.laneFailure !== 'batch') {
    throw new InboxConfigError(`laneFailure must be 'lane' or 'batch', but "${String(resolved.laneFailure)}" was given.`);
  }
  return resolved;
}
