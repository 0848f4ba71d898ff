import {
  BeginTransactionCommand,
  CommitTransactionCommand,
  ExecuteStatementCommand,
  RDSDataClient,
  RollbackTransactionCommand,
} from '@aws-sdk/client-rds-data';
import { DataApiResumingError, DataApiStatementTimeoutError, DataApiTransactionEndedError } from './errors.js';
import { toDataApiStatement } from './parameters.js';
import { toQueryResult } from './records.js';
import type { Database, QueryResult, Row, Transaction } from '../database/database.js';
import { DatabaseQueryError } from '../database/errors.js';
import { InboxConfigError } from '../errors.js';
import { serialized } from '../database/serialized.js';
import { sqlStateOf } from '../sql/sql-state.js';
import type { SqlStatement } from '../sql/sql.js';

/** How long a call waits for a paused Aurora Serverless cluster to resume. */
export interface ResumeRetry {
  /**
   * Tries of one call while the service answers DatabaseResumingException, the first included.
   * @default 6
   */
  readonly attempts?: number;
  /**
   * The first wait in milliseconds; each next one doubles (with jitter) up to `maxMs`.
   * @default 250
   */
  readonly baseMs?: number;
  /**
   * The longest single wait in milliseconds.
   * @default 4000
   */
  readonly maxMs?: number;
}

/** Options of `dataApiDatabase`. */
export interface DataApiDatabaseOptions {
  /** The Aurora cluster's ARN. */
  readonly resourceArn: string;
  /** The ARN of the Secrets Manager secret with the database credentials. */
  readonly secretArn: string;
  /** The database on the cluster. */
  readonly database: string;
  /**
   * The client to send with, for example one pointed at the local emulator; `close()` leaves a
   * client it was given alone.
   * @default new RDSDataClient({})
   */
  readonly client?: RDSDataClient;
  /**
   * Waiting for a paused cluster (DatabaseResumingException, which the SDK does not retry).
   * @default { attempts: 6, baseMs: 250, maxMs: 4000 }
   */
  readonly resumeRetry?: ResumeRetry;
}

/** Options of `dataApiDatabaseFromEnv`. */
export interface DataApiDatabaseFromEnvOptions extends Pick<DataApiDatabaseOptions, 'client' | 'resumeRetry'> {
  /**
   * Where CLUSTER_ARN, SECRET_ARN and DATABASE_NAME are read.
   * @default process.env
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

const RESUME_DEFAULTS = { attempts: 6, baseMs: 250, maxMs: 4000 } as const;
const ENV_NAMES = { resourceArn: 'CLUSTER_ARN', secretArn: 'SECRET_ARN', database: 'DATABASE_NAME' } as const;
// What the service and older versions of it say of a transaction it no longer has.
const TRANSACTION_GONE = /Transaction .* (is not|isn't) found/i;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function nameOf(error: unknown): string | undefined {
  const name = typeof error === 'object' && error !== null ? (error as { name?: unknown }).name : undefined;
  return typeof name === 'string' ? name : undefined;
}

function isTransactionGone(error: unknown): boolean {
  const name = nameOf(error);
  if (name === 'TransactionNotFoundException') return true;
  return (name === 'BadRequestException' || name === 'NotFoundException') && TRANSACTION_GONE.test((error as Error).message);
}

/** The kit's error for a failed call: SQLSTATE read from the message, the service's cases named. */
function translate(error: unknown, transactionId: string | undefined): unknown {
  if (transactionId !== undefined && isTransactionGone(error)) return new DataApiTransactionEndedError(transactionId, { cause: error });
  switch (nameOf(error)) {
    case 'DatabaseErrorException':
      return new DatabaseQueryError((error as Error).message, sqlStateOf(error), { cause: error });
    case 'StatementTimeoutException':
      return new DataApiStatementTimeoutError({ cause: error });
    case 'DatabaseResumingException':
      return new DataApiResumingError(1, 0, { cause: error });
    default:
      return error;
  }
}

function validated(options: DataApiDatabaseOptions): void {
  if (typeof options !== 'object' || options === null) throw new InboxConfigError('dataApiDatabase needs { resourceArn, secretArn, database }.');
  for (const field of ['resourceArn', 'secretArn', 'database'] as const) {
    if (typeof options[field] !== 'string' || options[field].trim() === '') {
      throw new InboxConfigError(`dataApiDatabase needs ${field} (a non-empty string), but ${JSON.stringify(options[field]) ?? 'undefined'} was given.`);
    }
  }
  const { attempts, baseMs, maxMs } = { ...RESUME_DEFAULTS, ...options.resumeRetry };
  if (!Number.isInteger(attempts) || attempts < 1 || attempts > 50) {
    throw new InboxConfigError(`resumeRetry.attempts must be a whole number from 1 to 50, but ${String(attempts)} was given.`);
  }
  for (const [name, value] of [['baseMs', baseMs], ['maxMs', maxMs]] as const) {
    if (!Number.isFinite(value) || value < 0 || value > 60_000) {
      throw new InboxConfigError(`resumeRetry.${name} must be from 0 to 60000 milliseconds, but ${String(value)} was given.`);
    }
  }
}

/**
 * A `Database` over the RDS Data API, the production driver: no VPC, no connections to manage.
 *
 * - A transaction is BeginTransaction, its statements and CommitTransaction. Every call on it goes
 *   through one queue (the service refuses a second call while one runs), so a handler may fire
 *   `tx.query` calls in parallel. On any error it is rolled back, except when the service answered
 *   that it no longer has the transaction: then no further call is sent. After a failed statement
 *   the service has normally rolled back already; the rollback is still sent and a "not found"
 *   answer ignored, because a transaction left open would hold the claim's row locks for 3 minutes.
 *   A later `tx.query` after a failed statement is refused without a call (SQLSTATE 25P02, as on PostgreSQL).
 * - Rows are read with `includeResultMetadata`: see `toQueryResult` for the types.
 * - DatabaseResumingException is waited out with backoff (`resumeRetry`) on autocommit statements
 *   and BeginTransaction; what is left is thrown as `DataApiResumingError`, which the runtime
 *   retries in place. SQL errors become `DatabaseQueryError` with the SQLSTATE of the message.
 *
 * @example
 * ```ts
 * const db = dataApiDatabase({ resourceArn: process.env.CLUSTER_ARN!, secretArn: process.env.SECRET_ARN!, database: 'app' });
 * const { rows } = await db.query(sql`SELECT count(*)::int AS n FROM orders WHERE status = ${'pending'}`); // rows[0].n: number
 * ```
 */
export function dataApiDatabase(options: DataApiDatabaseOptions): Database {
  validated(options);
  const client = options.client ?? new RDSDataClient({});
  const resume = { ...RESUME_DEFAULTS, ...options.resumeRetry };
  const target = { resourceArn: options.resourceArn, secretArn: options.secretArn };

  async function whileResuming<T>(call: () => Promise<T>): Promise<T> {
    let waitedMs = 0;
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await call();
      } catch (error) {
        if (nameOf(error) !== 'DatabaseResumingException') throw error;
        if (attempt >= resume.attempts) throw new DataApiResumingError(attempt, waitedMs, { cause: error });
        const waitMs = Math.round(Math.min(resume.maxMs, resume.baseMs * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2));
        waitedMs += waitMs;
        await sleep(waitMs);
      }
    }
  }

  async function execute<R>(statement: SqlStatement, transactionId?: string): Promise<QueryResult<R>> {
    const { sql, parameters } = toDataApiStatement(statement);
    const output = await client.send(new ExecuteStatementCommand({
      ...target, database: options.database, sql, parameters, transactionId, includeResultMetadata: true,
      resultSetOptions: { longReturnType: 'STRING', decimalReturnType: 'STRING' },
    }));
    return toQueryResult<R>(output);
  }

  async function query<R>(statement: SqlStatement): Promise<QueryResult<R>> {
    try {
      return await whileResuming(() => execute<R>(statement));
    } catch (error) {
      throw translate(error, undefined);
    }
  }

  async function transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    let transactionId: string;
    try {
      const begun = await whileResuming(() => client.send(new BeginTransactionCommand({ ...target, database: options.database })));
      if (!begun.transactionId) throw new DatabaseQueryError('BeginTransaction answered without a transactionId.', undefined);
      transactionId = begun.transactionId;
    } catch (error) {
      throw translate(error, undefined);
    }
    const id = transactionId;
    // One queue for every call on the transaction, commit and rollback included.
    const inTurn = serialized((call: () => Promise<unknown>) => call());
    let gone = false;
    let failed: unknown;
    const onTransaction = async <V>(call: () => Promise<V>): Promise<V> => {
      try {
        return await call();
      } catch (error) {
        const translated = translate(error, id);
        if (translated instanceof DataApiTransactionEndedError) gone = true;
        throw translated;
      }
    };

    const tx: Transaction = {
      query: <R = Row>(statement: SqlStatement) => inTurn(async () => {
        if (gone) throw new DataApiTransactionEndedError(id);
        if (failed !== undefined) {
          throw new DatabaseQueryError('current transaction is aborted: an earlier statement of it failed, so it can only be rolled back.', '25P02', { cause: failed });
        }
        try {
          return await onTransaction(() => execute<R>(statement, id));
        } catch (error) {
          failed = error;
          throw error;
        }
      }) as Promise<QueryResult<R>>,
    };

    try {
      const result = await work(tx);
      await inTurn(async () => {
        if (gone) throw new DataApiTransactionEndedError(id);
        // A handler that swallowed a statement's error must not see its work reported committed.
        if (failed !== undefined) {
          throw new DatabaseQueryError('The transaction was not committed: one of its statements failed (the handler caught the error).', '25P02', { cause: failed });
        }
        await onTransaction(() => client.send(new CommitTransactionCommand({ ...target, transactionId: id })));
      });
      return result;
    } catch (error) {
      if (!gone) {
        await inTurn(() => client.send(new RollbackTransactionCommand({ ...target, transactionId: id }))).catch(() => undefined);
      }
      throw error;
    }
  }

  return {
    query,
    transaction,
    async close(): Promise<void> {
      if (options.client === undefined) client.destroy();
    },
  };
}

/**
 * `dataApiDatabase` configured from the function's environment: CLUSTER_ARN, SECRET_ARN and
 * DATABASE_NAME, as the InboxConsumer construct sets them. A missing variable is named in the error.
 *
 * @example
 * ```ts
 * const db = dataApiDatabaseFromEnv();
 * export const handler = middy().use(inbox({ consumer: 'ship-orders', db, statement: (order) => sql`UPDATE orders SET status = 'shipped' WHERE order_id = ${sql.uuid(order.id)}` }));
 * ```
 */
export function dataApiDatabaseFromEnv(options: DataApiDatabaseFromEnvOptions = {}): Database {
  const env = options.env ?? process.env;
  const missing = Object.values(ENV_NAMES).filter((name) => (env[name] ?? '').trim() === '');
  if (missing.length > 0) {
    throw new InboxConfigError(`Set ${missing.join(', ')} in the function's environment: the Data API driver reads the cluster ARN, the secret ARN and the database name from CLUSTER_ARN, SECRET_ARN and DATABASE_NAME (the InboxConsumer construct sets them).`);
  }
  return dataApiDatabase({
    resourceArn: env[ENV_NAMES.resourceArn]!,
    secretArn: env[ENV_NAMES.secretArn]!,
    database: env[ENV_NAMES.database]!,
    client: options.client,
    resumeRetry: options.resumeRetry,
  });
}
