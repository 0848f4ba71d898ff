import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { RDSDataClient } from '@aws-sdk/client-rds-data';
import { INBOX_ENV } from '../../contract.js';
import { dataApiDatabase } from '../../data-api/data-api-database.js';
import type { Database } from '../../database/database.js';
import { pgDatabase } from '../../pg/pg-database.js';
import { OperatorCommandError } from '../errors.js';
import { awsClientConfig, stringOf, type OptionValues } from './arguments.js';
import type { CliIo } from './cli-io.js';
import { readStackOutputs, resolveStackConnection, type StackConnection } from './stack-outputs.js';

/** The environment variable of a PostgreSQL URL, for a local or reachable server. */
export const DATABASE_URL_ENV = 'DATABASE_URL';

/** The connection `--stack` names, read from the stack's outputs; `undefined` without `--stack`. */
async function stackConnection(values: OptionValues, io: CliIo): Promise<StackConnection | undefined> {
  const stackName = stringOf(values, 'stack');
  if (stackName === undefined) {
    if (stringOf(values, 'database-id') !== undefined) throw new OperatorCommandError('--database-id chooses among the databases of a stack: give --stack too.');
    return undefined;
  }
  if (stringOf(values, 'database-url') !== undefined) throw new OperatorCommandError('--stack and --database-url name two databases: give one of them.');
  const client = io.cloudFormationClient?.() ?? new CloudFormationClient(awsClientConfig(values));
  return resolveStackConnection(stackName, await readStackOutputs(client, stackName), stringOf(values, 'database-id'));
}

/** What a command works on: the database, and with `--stack` what the stack's outputs say of it and its consumers. */
export interface OperatorConnection {
  readonly db: Database;
  readonly stack: StackConnection | undefined;
}

/**
 * The database the command works on: `--database-url` or DATABASE_URL through node-postgres, else the
 * Data API with the cluster, secret and database from flags, else from the outputs of `--stack`,
 * else from the environment the functions read. With `--stack`, DATABASE_URL is not read.
 *
 * @example
 * ```ts
 * const { db, stack } = await openConnection({ stack: 'SqsInbox-dev', region: 'eu-west-1' }, io);
 * ```
 */
export async function openConnection(values: OptionValues, io: CliIo): Promise<OperatorConnection> {
  const stack = await stackConnection(values, io);
  const url = stringOf(values, 'database-url') ?? (stack === undefined ? io.env[DATABASE_URL_ENV] : undefined);
  if (url !== undefined && url !== '') return { db: pgDatabase({ connectionString: url, max: 2 }), stack };
  const resourceArn = stringOf(values, 'cluster-arn') ?? stack?.clusterArn ?? io.env[INBOX_ENV.clusterArn];
  const secretArn = stringOf(values, 'secret-arn') ?? stack?.secretArn ?? io.env[INBOX_ENV.secretArn];
  const database = stringOf(values, 'database') ?? stack?.database ?? io.env[INBOX_ENV.databaseName];
  if (!resourceArn || !secretArn || !database) {
    throw new OperatorCommandError(`No database to work on: give --stack with the stack of your InboxDatabase, or set ${DATABASE_URL_ENV} (or --database-url), or ${INBOX_ENV.clusterArn}, ${INBOX_ENV.secretArn} and ${INBOX_ENV.databaseName} (or --cluster-arn, --secret-arn and --database) for the Data API with the operator role's secret.`);
  }
  const client = io.rdsDataClient?.() ?? new RDSDataClient({ cacheMiddleware: true, ...awsClientConfig(values) });
  // A paused cluster takes seconds to resume: wait longer than a Lambda would.
  return { db: dataApiDatabase({ resourceArn, secretArn, database, client, resumeRetry: { attempts: 10, baseMs: 500, maxMs: 5000 } }), stack };
}
