import { pgDatabase, type Database } from '../../functions/inbox/index.js';

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
];
