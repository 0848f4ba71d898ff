import type { RDSDataClient } from '@aws-sdk/client-rds-data';
import type { Database } from '../../functions/inbox/index.js';
import type { DataApiDatabaseOptions } from '../../functions/inbox/data-api/index.js';
import { localDataApiClient, localDataApiDatabase, startDataApi, type RunningDataApi, type StartDataApiOptions } from '../../local/data-api/index.js';

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
  const client = localDataApiClient(api.endpoint);
  const database = decodeURIComponent(new URL(url).pathname.slice(1));
  const db = localDataApiDatabase(client, database, driver);
  return {
    api, client, db, database,
    close: async () => {
      await db.close();
      client.destroy();
      await api.close();
    },
  };
}
