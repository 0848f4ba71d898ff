import { RDSDataClient } from '@aws-sdk/client-rds-data';
import { dataApiDatabase, type Database, type DataApiDatabaseOptions } from '../../functions/inbox/index.js';
import { startDataApi, type RunningDataApi, type StartDataApiOptions } from '../../local/data-api/index.js';

/** ARNs the emulator accepts; it serves whatever cluster it is asked for. */
export const LOCAL_TARGET = {
  resourceArn: 'arn:aws:rds:us-east-1:123456789012:cluster:local',
  secretArn: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:local',
} as const;

/** The real SDK client, pointed at an emulator. */
export function localClient(endpoint: string): RDSDataClient {
  return new RDSDataClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
}

/** An emulator on the server of `url`, the real SDK client on it, and the driver on the URL's database. */
export interface LocalDataApi {
  api: RunningDataApi;
  client: RDSDataClient;
  db: Database;
  database: string;
  close(): Promise<void>;
}

/**
 * Starts an emulator in front of `url`'s server and opens `dataApiDatabase` on `url`'s database
 * through it, as production reaches Aurora.
 */
export async function openDataApi(
  url: string,
  emulator: Omit<StartDataApiOptions, 'databaseUrl'> = {},
  driver: Pick<DataApiDatabaseOptions, 'resumeRetry'> = {},
): Promise<LocalDataApi> {
  const api = await startDataApi({ ...emulator, databaseUrl: url });
  const client = localClient(api.endpoint);
  const database = decodeURIComponent(new URL(url).pathname.slice(1));
  const db = dataApiDatabase({ ...LOCAL_TARGET, database, client, ...driver });
  return {
    api, client, db, database,
    close: async () => {
      await db.close();
      client.destroy();
      await api.close();
    },
  };
}
