import {
  BeginTransactionCommand,
  CommitTransactionCommand,
  ExecuteStatementCommand,
  RDSDataClient,
  RollbackTransactionCommand,
} from '@aws-sdk/client-rds-data';
import type { Database, QueryResult, Transaction } from '../database/database.js';
import { DatabaseQueryError } from '../database/errors.js';
import { InboxConfigError } from '../errors.js';
import { retry } from '../retry.js';
import type { SqlStatement } from '../sql/sql.js';
import { DataApiResumingError } from './errors.js';
import { ENV_NAMES, resumeRetryOf, type DataApiDatabaseFromEnvOptions, type DataApiDatabaseOptions, type ResumeRetry } from './options.js';
import { toDataApiStatement } from './parameters.js';
import { toQueryResult } from './records.js';
import { serviceErrorName, translateServiceError } from './service-errors.js';
import { inTransaction } from './transaction.js';

export type { DataApiDatabaseFromEnvOptions, DataApiDatabaseOptions, ResumeRetry } from './options.js';

/** A call retried while the cluster resumes from a pause; what is left is a `DataApiResumingError`. */
function whileResuming<T>(call: () => Promise<T>, resume: Required<ResumeRetry>): Promise<T> {
  return retry(call, {
    attempts: resume.attempts,
    backoff: { baseMs: resume.baseMs, maxMs: resume.maxMs, jitter: 'equal' },
    retryable: (error) => serviceErrorName(error) === 'DatabaseResumingException',
    exhausted: (error, tries) => new DataApiResumingError(tries.attempts, tries.waitedMs, { cause: error }),
  });
}

/**
 * A `Database` over the RDS Data API, the production driver: no VPC, no connections to manage.
 *
 * - A transaction is BeginTransaction, its statements and CommitTransaction, one call at a time,
 *   rolled back on any error unless the service has ended it already (see `inTransaction`).
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
  const resume = resumeRetryOf(options);
  const client = options.client ?? new RDSDataClient({});
  const target = { resourceArn: options.resourceArn, secretArn: options.secretArn };

  async function execute<R>(statement: SqlStatement, transactionId?: string): Promise<QueryResult<R>> {
    const { sql, parameters } = toDataApiStatement(statement);
    const output = await client.send(new ExecuteStatementCommand({
      ...target, database: options.database, sql, parameters, transactionId, includeResultMetadata: true,
      resultSetOptions: { longReturnType: 'STRING', decimalReturnType: 'STRING' },
    }));
    return toQueryResult<R>(output);
  }

  async function begin(): Promise<string> {
    try {
      const begun = await whileResuming(() => client.send(new BeginTransactionCommand({ ...target, database: options.database })), resume);
      if (!begun.transactionId) throw new DatabaseQueryError('BeginTransaction answered without a transactionId.', undefined);
      return begun.transactionId;
    } catch (error) {
      throw translateServiceError(error, undefined);
    }
  }

  return {
    async query<R>(statement: SqlStatement): Promise<QueryResult<R>> {
      try {
        return await whileResuming(() => execute<R>(statement), resume);
      } catch (error) {
        throw translateServiceError(error, undefined);
      }
    },
    async transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
      const id = await begin();
      return inTransaction(id, {
        execute: (statement) => execute(statement, id),
        commit: () => client.send(new CommitTransactionCommand({ ...target, transactionId: id })),
        rollback: () => client.send(new RollbackTransactionCommand({ ...target, transactionId: id })),
      }, work);
    },
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
