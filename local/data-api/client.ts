import { RDSDataClient, type RDSDataClientConfig } from '@aws-sdk/client-rds-data';
import type { Database } from '../../functions/inbox/index.js';
import { INBOX_ENV } from '../../functions/inbox/internal.js';
import { dataApiDatabase, type DataApiDatabaseOptions } from '../../functions/inbox/data-api/index.js';

/** ARNs for calls to the emulator: it serves whatever cluster and secret it is asked for. */
export const LOCAL_DATA_API_TARGET = {
  resourceArn: 'arn:aws:rds:us-east-1:123456789012:cluster:local',
  secretArn: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:local',
} as const;

/**
 * The real `RDSDataClient`, pointed at the local emulator with fixed credentials (the emulator does
 * not check signatures), so no AWS configuration on the machine is read, with its middleware stack
 * resolved once per command (`cacheMiddleware`, as the kit's own client: add middleware before the
 * first call). `config` adds to that, for example a `requestHandler` with an HTTP agent of its own.
 *
 * @example
 * ```ts
 * const client = localDataApiClient(api.endpoint);
 * await client.send(new ExecuteStatementCommand({ ...LOCAL_DATA_API_TARGET, database: 'app', sql: 'SELECT 1' }));
 * ```
 */
export function localDataApiClient(endpoint: string, config: Omit<RDSDataClientConfig, 'endpoint' | 'region' | 'credentials'> = {}): RDSDataClient {
  return new RDSDataClient({ cacheMiddleware: true, ...config, endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
}

/**
 * The production driver, `dataApiDatabase`, on one database behind the local emulator, as a Lambda
 * reaches Aurora. Given the emulator's endpoint, it makes its own client and `close()` destroys it;
 * given a client, `close()` leaves the client alone: destroy it yourself.
 *
 * @example
 * ```ts
 * const api = await startDataApi({ databaseUrl: postgres.url });
 * const db = localDataApiDatabase(api.endpoint, 'postgres');
 * await db.query(sql`SELECT 1`);
 * await db.close();
 * ```
 */
export function localDataApiDatabase(to: RDSDataClient | string, database: string, driver: Pick<DataApiDatabaseOptions, 'resumeRetry'> = {}): Database {
  if (typeof to !== 'string') return dataApiDatabase({ ...LOCAL_DATA_API_TARGET, database, client: to, ...driver });
  const client = localDataApiClient(to);
  const db = dataApiDatabase({ ...LOCAL_DATA_API_TARGET, database, client, ...driver });
  return {
    ...db,
    async close() {
      try {
        await db.close();
      } finally {
        client.destroy();
      }
    },
  };
}

/**
 * The environment of a Lambda whose handler reads it at import (`dataApiDatabaseFromEnv()`),
 * pointed at the local emulator: CLUSTER_ARN (the emulator takes any), SECRET_ARN (`secretArn`: a
 * role's secret of `migrateAsDeployed`, to sign in as the deployed role; by default one the emulator
 * started without secrets takes), DATABASE_NAME, AWS_ENDPOINT_URL_RDS_DATA (which the real SDK
 * client honours, as any AWS SDK does), a region and dummy credentials (the emulator does not check
 * signatures). Set it before the handler is imported.
 *
 * @example
 * ```ts
 * Object.assign(process.env, localDataApiEnvironment(api.endpoint, 'app', deployed.roles.ship_orders!.secretArn));
 * const { handler } = await import('../src/handler.js');
 * ```
 */
export function localDataApiEnvironment(endpoint: string, database: string, secretArn: string = LOCAL_DATA_API_TARGET.secretArn): Record<string, string> {
  return {
    [INBOX_ENV.clusterArn]: LOCAL_DATA_API_TARGET.resourceArn,
    [INBOX_ENV.secretArn]: secretArn,
    [INBOX_ENV.databaseName]: database,
    AWS_ENDPOINT_URL_RDS_DATA: endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  };
}
