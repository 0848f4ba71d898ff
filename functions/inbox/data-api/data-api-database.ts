import {
  BatchExecuteStatementCommand,
  BeginTransactionCommand,
  CommitTransactionCommand,
  ExecuteStatementCommand,
  RDSDataClient,
  RollbackTransactionCommand,
} from '@aws-sdk/client-rds-data';
import type { Database, QueryResult, Transaction } from '../database/database.js';
import { DatabaseQueryError } from '../database/errors.js';
import { InboxConfigError } from '../errors.js';
import { retry, type RetryPolicy } from '../retry.js';
import type { SqlStatement } from '../sql/sql.js';
import { inBatch, type BatchCalls } from './batch-execute.js';
import { DataApiResumingError } from './errors.js';
import { ENV_NAMES, resumeRetryOf, type DataApiDatabaseFromEnvOptions, type DataApiDatabaseOptions, type ResumeRetry } from './options.js';
import { toDataApiStatement } from './parameters.js';
import { toQueryResult } from './records.js';
import { serviceErrorName, translateServiceError } from './service-errors.js';
import { inTransaction, type TransactionCalls } from './transaction.js';

export type { DataApiDatabaseFromEnvOptions, DataApiDatabaseOptions, ResumeRetry } from './options.js';

const isResumingCall = (error: unknown) => serviceErrorName(error) === 'DatabaseResumingException';
const resumingLeft = (error: unknown, tries: { readonly attempts: number; readonly waitedMs: number }) =>
  new DataApiResumingError(tries.attempts, tries.waitedMs, { cause: error });

/** How a call is retried while the cluster resumes from a pause; what is left is a `DataApiResumingError`. */
function resumingPolicy(resume: Required<ResumeRetry>): RetryPolicy {
  return {
    attempts: resume.attempts,
    backoff: { baseMs: resume.baseMs, maxMs: resume.maxMs, jitter: 'equal' },
    retryable: isResumingCall,
    exhausted: resumingLeft,
  };
}

/**
 * A `Database` over the RDS Data API, the production driver: no VPC, no connections to manage.
 *
 * - A transaction is BeginTransaction, its statements and CommitTransaction, one call at a time,
 *   rolled back on any error unless the service has ended it already (see `inTransaction`).
 * - `batch` is BeginTransaction, one BatchExecuteStatement per run of statements of one text (split
 *   at the 4 MiB request limit) and CommitTransaction (see `inBatch`).
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
  // Built once: a closure made per call costs more than the driver's own work on Node.js 20 once a
  // bundle keeps function names (keepNames, as the InboxConsumer bundles).
  const resuming = resumingPolicy(resumeRetryOf(options));
  // The SDK resolves the middleware stack once per command class instead of on every call (the
  // kit adds none to its own client): about a sixth of the worker's CPU a call (bench:scale).
  const client = options.client ?? new RDSDataClient({ cacheMiddleware: true });
  const { execute, begin, calls, batchCalls } = dataApiCalls(client, options, resuming);
  return {
    async query<R>(statement: SqlStatement): Promise<QueryResult<R>> {
      try {
        return await retry(() => execute<R>(statement), resuming);
      } catch (error) {
        throw translateServiceError(error, undefined);
      }
    },
    async transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
      return inTransaction(await begin(), calls, work);
    },
    batch: (statements) => inBatch(statements, batchCalls),
    async close(): Promise<void> {
      if (options.client === undefined) client.destroy();
    },
  };
}

/** The calls of one database, built once, that its statements, transactions and batches make. */
interface DataApiCalls {
  execute<R>(statement: SqlStatement, transactionId?: string): Promise<QueryResult<R>>;
  begin(): Promise<string>;
  readonly calls: TransactionCalls;
  readonly batchCalls: BatchCalls;
}

function dataApiCalls(client: RDSDataClient, options: DataApiDatabaseOptions, resuming: RetryPolicy): DataApiCalls {
  // Each call's input is written out field by field: on Node.js 20 an object literal that spreads
  // another and then adds fields costs about a microsecond a field, most of the driver's own time.
  const { resourceArn, secretArn, database } = options;

  async function execute<R>(statement: SqlStatement, transactionId?: string): Promise<QueryResult<R>> {
    const { sql, parameters } = toDataApiStatement(statement);
    const output = await client.send(new ExecuteStatementCommand({
      resourceArn, secretArn, database, sql, parameters, transactionId, includeResultMetadata: true,
      resultSetOptions: { longReturnType: 'STRING', decimalReturnType: 'STRING' },
    }));
    return toQueryResult<R>(output);
  }

  async function begin(): Promise<string> {
    try {
      const begun = await retry(() => client.send(new BeginTransactionCommand({ resourceArn, secretArn, database })), resuming);
      if (!begun.transactionId) throw new DatabaseQueryError('BeginTransaction answered without a transactionId.', undefined);
      return begun.transactionId;
    } catch (error) {
      throw translateServiceError(error, undefined);
    }
  }

  const calls: TransactionCalls = {
    execute,
    commit: (transactionId) => client.send(new CommitTransactionCommand({ resourceArn, secretArn, transactionId })),
    rollback: (transactionId) => client.send(new RollbackTransactionCommand({ resourceArn, secretArn, transactionId })),
  };
  const batchCalls: BatchCalls = {
    begin,
    batchExecute: ({ sql, parameterSets }, transactionId) =>
      client.send(new BatchExecuteStatementCommand({ resourceArn, secretArn, database, sql, parameterSets, transactionId })),
    commit: calls.commit,
    rollback: calls.rollback,
  };
  return { execute, begin, calls, batchCalls };
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
