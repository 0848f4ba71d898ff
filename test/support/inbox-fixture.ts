import type pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import type { Database } from '../../functions/inbox/index.js';
import { freshDatabase } from './database.js';
import type { DriverTarget } from './drivers.js';

export interface InboxFixture {
  /** The driver under test, on a database of this file's own. */
  db: Database;
  /** A direct pg pool on the same database, for arranging and checking. */
  pool: pg.Pool;
  /** The database's connection URL. */
  url: string;
  /** Another connection of the same driver, as a second Lambda would have. */
  openAnother(): Promise<Database>;
}

/** Gives a test file a fresh migrated database reached through `driver`, closed after the file. */
export function useInboxDatabase(driver: DriverTarget): InboxFixture {
  const closers: (() => Promise<void>)[] = [];
  const fixture = {} as InboxFixture;
  beforeAll(async () => {
    const fresh = await freshDatabase();
    const opened = await driver.open(fresh.url);
    closers.push(() => fresh.close(), () => opened.close());
    fixture.db = opened.db;
    fixture.pool = fresh.pool;
    fixture.url = fresh.url;
    fixture.openAnother = async () => {
      const another = await driver.open(fresh.url);
      closers.push(() => another.close());
      return another.db;
    };
  });
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
  });
  return fixture;
}
