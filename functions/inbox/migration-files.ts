import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { InboxConfigError } from './errors.js';
import type { Migration } from './migrate.js';

const MIGRATION_FILE = /^\d{4}_[a-z0-9_]+\.sql$/;

/**
 * The migrations of a folder: every `NNNN_name.sql` file, in name order. Any other `.sql` file is
 * refused, so a misnamed migration is never silently skipped.
 *
 * @example
 * ```ts
 * const migrations = await readMigrations('migrations'); // [{ name: '0001_consumed_message.sql', sql: '...' }, ...]
 * ```
 */
export async function readMigrations(dir: string | URL): Promise<Migration[]> {
  const folder = dir instanceof URL ? dir.pathname : dir;
  const files = (await readdir(folder)).filter((file) => file.endsWith('.sql')).sort();
  const misnamed = files.filter((file) => !MIGRATION_FILE.test(file));
  if (misnamed.length > 0) {
    throw new InboxConfigError(`Migration files must be named NNNN_name.sql (lower case): rename ${misnamed.join(', ')}.`);
  }
  return Promise.all(files.map(async (name) => ({ name, sql: await readFile(path.join(folder, name), 'utf8') })));
}
