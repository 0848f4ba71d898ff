import { type Database } from '../../functions/inbox/index.js';
import { pgDatabase } from '../../functions/inbox/pg/index.js';
import { openDataApi } from './data-api.js';

/** A way to reach a test database: the suites that touch SQL run once per driver. */
export interface DriverTarget {
  name: 'pg' | 'data-api';
  open(url: string): Promise<{ db: Database; close(): Promise<void> }>;
}

export const drivers: DriverTarget[] = [
  {
    name: 'pg',
    open: async (url) => {
      const db = pgDatabase({ connectionString: url, max: 12 });
      return { db, close: () => db.close() };
    },
  },
  {
    // The production driver through the real SDK client, against the local Data API emulator.
    name: 'data-api',
    open: async (url) => {
      const { db, close } = await openDataApi(url);
      return { db, close };
    },
  },
];
