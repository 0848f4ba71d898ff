import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { processBatch, type Database, type InboxOptions, type SqlStatement, type Transaction } from '../functions/inbox/index.js';
import type { QueryResult } from '../functions/inbox/internal.js';
import type { LambdaEnvironment } from './lambda-environment.js';

/**
 * Where an invocation dies. Each autocommitted statement and each transaction of the invocation is
 * one commit point, counted from 1 in the order they start.
 */
export interface CrashPoint {
  /**
   * `before-commit`: the work of that commit point is done, then the process dies and the server
   * rolls it back. `after-commit`: it commits, then the process dies before anything else happens,
   * so SQS never hears of it: the crash that a separate idempotency store cannot survive.
   */
  readonly when: 'before-commit' | 'after-commit';
  readonly at: number;
}

// What a dead invocation waits on instead of finishing its transaction.
const NEVER = new Promise<never>(() => undefined);

/**
 * Where an invocation dies in its outbox's send after the commit: `before-send`, the rows committed
 * and nothing sent; `after-send`, the target took them and the process dies before marking them.
 */
export interface SendCrashPoint {
  readonly when: 'before-send' | 'after-send';
}

/** What a dead invocation's calls throw, and the invocation itself. */
export class InjectedCrashError extends Error {
  /** Where it died: the plan's commit point, or a point in the outbox's send. */
  public readonly point: CrashPoint | SendCrashPoint;
  public constructor(point: CrashPoint | SendCrashPoint) {
    super(`injected crash ${point.when}${'at' in point ? ` at commit point ${point.at}` : ''}: the invocation died`);
    this.name = 'InjectedCrashError';
    this.point = point;
  }
}

/**
 * What a timed-out invocation's calls throw: Lambda resets the execution environment of a function
 * that runs past its timeout, so its code stops there, as after a crash.
 */
export class FunctionTimeoutError extends Error {
  public constructor(timeoutMs: number) {
    super(`the invocation ran past its ${timeoutMs} ms timeout and its environment was reset`);
    this.name = 'FunctionTimeoutError';
  }
}

/**
 * What becomes of a transaction the invocation had open when it died: `rolled-back` at once, as a
 * PostgreSQL server does when a dead client's connection closes; or `abandoned`, as on the RDS Data
 * API, where nothing more is sent and the service rolls it back after its idle timeout, its row
 * locks held until then.
 */
export type OpenTransactionFate = 'rolled-back' | 'abandoned';

/** What code running in an invocation may do to it: end it, as a fault injected in a send does. */
export interface DyingInvocation {
  /** Ends the invocation now, for a reason other than its crash point (its timeout, a fault in a send); a second death changes nothing. */
  kill(reason: Error): void;
}

/** One invocation's view of the database, and the promise that rejects when it dies. */
export interface DyingDatabase extends DyingInvocation {
  readonly db: Database;
  readonly death: Promise<never>;
}

/**
 * Counts an invocation's commit points: whether the commit starting now, of `records` records (a
 * batch of statements commits several at once), holds the commit point to die at.
 */
function commitPoints(point: CrashPoint | undefined): (records?: number) => boolean {
  let counted = 0;
  return (records = 1) => {
    const first = counted + 1;
    counted += records;
    return point !== undefined && point.at >= first && point.at <= counted;
  };
}

/** A transaction whose every statement throws once its invocation is dead, before and after it runs. */
function livingTransaction(tx: Transaction, alive: () => void): Transaction {
  return {
    async query<R>(statement: SqlStatement): Promise<QueryResult<R>> {
      alive();
      const result = await tx.query<R>(statement);
      alive();
      return result;
    },
  };
}

/**
 * Wraps a Database for one invocation so that the process "dies" at `point`: from then on every call
 * of the invocation throws `InjectedCrashError` and `death` rejects with it. Work already sent to the
 * server runs to its end there, as it would after a real crash; a transaction the dead code had open
 * meets `openTransactions`. `close()` leaves `inner` open: it is shared by every invocation.
 *
 * @example
 * ```ts
 * const { db, death } = dyingDatabase(shared, { when: 'after-commit', at: 3 });
 * await Promise.race([processBatch(event, context, shipOrderOptions(db)), death]); // rejects after the third commit
 * ```
 */
export function dyingDatabase(inner: Database, point: CrashPoint | undefined, openTransactions: OpenTransactionFate = 'rolled-back'): DyingDatabase {
  let dead: Error | undefined;
  let kill: (error: Error) => void = () => undefined;
  const death = new Promise<never>((_, reject) => {
    kill = reject;
  });
  // A caller that never looks at `death` has the error from the call itself.
  death.catch(() => undefined);

  const alive = (): void => {
    if (dead !== undefined) throw dead;
  };
  const end = (reason: Error): void => {
    if (dead !== undefined) return;
    dead = reason;
    kill(reason);
  };
  const die = (): never => {
    end(new InjectedCrashError(point!));
    throw dead!;
  };
  const fatal = commitPoints(point);

  const db: Database = {
    async query<R>(statement: SqlStatement): Promise<QueryResult<R>> {
      alive();
      const here = fatal();
      if (here && point!.when === 'before-commit') die();
      const result = await inner.query<R>(statement);
      alive();
      if (here) die();
      return result;
    },
    async transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
      alive();
      const here = fatal();
      const value = await inner.transaction(async (tx) => {
        try {
          const done = await work(livingTransaction(tx, alive));
          alive();
          if (here && point!.when === 'before-commit') die();
          return done;
        } catch (error) {
          // A dead process sends neither COMMIT nor ROLLBACK: its code never runs again.
          if (dead !== undefined && openTransactions === 'abandoned') await NEVER;
          throw error;
        }
      });
      alive();
      if (here) die();
      return value;
    },
    // A batch commits its statements' records at once: a crash planned at any of them dies before
    // the batch (nothing of it committed) or after it (all of it committed).
    batch: inner.batch && (async (statements: readonly SqlStatement[]): Promise<void> => {
      alive();
      const here = fatal(statements.length);
      if (here && point!.when === 'before-commit') die();
      await inner.batch!(statements);
      alive();
      if (here) die();
    }),
    close: async () => undefined,
  };
  return { db, death, kill: end };
}

/** What a crashing invocation needs, whatever its event source. */
export interface CrashingInvocationsOptions<E> {
  /** The database every invocation shares, unless `environment` gives each environment its own. */
  readonly db: Database;
  /**
   * Makes a Lambda execution environment: an invocation runs in an idle one, or a new one, and a
   * dead invocation's environment is killed (its client cut off: nothing more leaves it) and never
   * used again, as Lambda starts a new one after a process dies or times out.
   * @default none: every invocation uses `db`, and a dead one's calls already handed to it still go out
   */
  readonly environment?: () => LambdaEnvironment;
  /** Decides, for an event, where its invocation dies, or not at all. */
  readonly plan: (event: E) => CrashPoint | undefined;
  /**
   * What becomes of the transactions a dead invocation had open; `abandoned` for a worker on the Data API.
   * @default 'rolled-back'
   */
  readonly openTransactions?: OpenTransactionFate;
  /**
   * Told about each crash that happened.
   * @default none
   */
  readonly onCrash?: (point: CrashPoint) => void;
}

/**
 * A Lambda handler around `run` whose invocations die where `plan` says: the handler then throws
 * `InjectedCrashError` instead of answering, so the event source fails the whole batch and
 * acknowledges nothing, as Lambda does when a function's process dies. A plan whose commit point
 * the batch never reaches does not crash. An invocation still running at its timeout (the
 * context's remaining time) dies too, with `FunctionTimeoutError`: Lambda resets the environment,
 * so its open transactions meet `openTransactions` as after a crash.
 *
 * @example
 * ```ts
 * const handler = crashingInvocations({ db, plan: () => ({ when: 'after-commit', at: 1 }) },
 *   (db, event, context) => processKafkaBatch(event, context, kafkaShipOrderOptions(db)));
 * ```
 */
export function crashingInvocations<E, Res>(
  options: CrashingInvocationsOptions<E>,
  run: (db: Database, event: E, context: Context, invocation: DyingInvocation) => Promise<Res>,
): (event: E, context: Context) => Promise<Res> {
  const idle: LambdaEnvironment[] = [];
  return async (event, context) => {
    const point = options.plan(event);
    const environment = options.environment === undefined ? undefined : (idle.pop() ?? options.environment());
    const dying = dyingDatabase(environment?.db ?? options.db, point, options.openTransactions);
    dying.death.catch((reason: Error) => environment?.kill(reason));
    const timeoutMs = typeof context?.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : undefined;
    const timer = timeoutMs === undefined ? undefined : setTimeout(() => dying.kill(new FunctionTimeoutError(timeoutMs)), timeoutMs);
    let died = false;
    try {
      return await Promise.race([run(dying.db, event, context, dying), dying.death]);
    } catch (error) {
      died = error instanceof InjectedCrashError || error instanceof FunctionTimeoutError;
      // A death the code under test caused itself (in its outbox's send) is counted by whoever caused it.
      if (error instanceof InjectedCrashError && point !== undefined && error.point === point) options.onCrash?.(point);
      throw error;
    } finally {
      clearTimeout(timer);
      if (environment !== undefined && !died) idle.push(environment);
    }
  };
}

/** Options of `crashingHandler`. */
export interface CrashingHandlerOptions<T> extends Omit<CrashingInvocationsOptions<SQSEvent>, 'plan'> {
  /** The worker's inbox options on a database: each invocation gets its own dying one, a way to end it, and its records. */
  readonly worker: (db: Database, invocation: DyingInvocation, records: readonly SQSRecord[]) => InboxOptions<T>;
  /** Decides, for a batch, where its invocation dies, or not at all. */
  readonly plan: (records: readonly SQSRecord[]) => CrashPoint | undefined;
}

/**
 * `crashingInvocations` for an SQS worker: the worker's options run through `processBatch`.
 *
 * @example
 * ```ts
 * const handler = crashingHandler({
 *   db,
 *   worker: (db) => shipOrderOptions(db),
 *   plan: (records) => (Math.random() < 0.05 ? { when: 'after-commit', at: 1 + Math.floor(Math.random() * records.length) } : undefined),
 * });
 * await startEventSource({ client, queueUrl, handler });
 * ```
 */
export function crashingHandler<T>(options: CrashingHandlerOptions<T>): (event: SQSEvent, context: Context) => Promise<SQSBatchResponse> {
  return crashingInvocations(
    { ...options, plan: (event: SQSEvent) => options.plan(Array.isArray(event?.Records) ? event.Records : []) },
    (db, event, context, invocation) => processBatch(event, context, options.worker(db, invocation, Array.isArray(event?.Records) ? event.Records : [])),
  );
}
