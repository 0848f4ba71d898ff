import { RDSDataClient } from '@aws-sdk/client-rds-data';
import { INBOX_ENV } from '../../contract.js';
import { dataApiDatabase } from '../../data-api/data-api-database.js';
import type { Database } from '../../database/database.js';
import { pgDatabase } from '../../pg/pg-database.js';
import { OperatorCommandError } from '../errors.js';
import { stringOf, type OptionValues } from './arguments.js';
import type { CliIo } from './cli-io.js';

/** The environment variable of a PostgreSQL URL, for a local or reachable server. */
export const DATABASE_URL_ENV = 'DATABASE_URL';

/**
 * The database the command works on: `--database-url` or DATABASE_URL through node-postgres, else the
 * Data API with the cluster, secret and database from flags or the environment the functions read.
 *
 * @example
 * ```ts
 * const db = openDatabase({ 'database-url': 'postgres://operator@localhost/app' }, io);
 * ```
 */
export function openDatabase(values: OptionValues, io: CliIo): Database {
  const url = stringOf(values, 'database-url') ?? io.env[DATABASE_URL_ENV];
  if (url !== undefined && url !== '') return pgDatabase({ connectionString: url, max: 2 });
  const resourceArn = stringOf(values, 'cluster-arn') ?? io.env[INBOX_ENV.clusterArn];
  const secretArn = stringOf(values, 'secret-arn') ?? io.env[INBOX_ENV.secretArn];
  const database = stringOf(values, 'database') ?? io.env[INBOX_ENV.databaseName];
  if (!resourceArn || !secretArn || !database) {
    throw new OperatorCommandError(`No database to work on: set ${DATABASE_URL_ENV} (or --database-url), or ${INBOX_ENV.clusterArn}, ${INBOX_ENV.secretArn} and ${INBOX_ENV.databaseName} (or --cluster-arn, --secret-arn and --database) for the Data API with the operator role's secret.`);
  }
  const client = io.rdsDataClient?.() ?? new RDSDataClient({ cacheMiddleware: true });
  // A paused cluster takes seconds to resume: wait longer than a Lambda would.
  return dataApiDatabase({ resourceArn, secretArn, database, client, resumeRetry: { attempts: 10, baseMs: 500, maxMs: 5000 } });
}
