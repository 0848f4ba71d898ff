import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MIGRATION_FILE_NAME } from '../contract.js';
import { MigrationFileError } from './errors.js';
import type { Migration } from './migrate.js';
import { splitStatements } from '../sql/sql-text.js';

/**
 * Reads the migrations of a folder: every `NNNN_name.sql` file (four digits, then lower-case
 * letters, digits and `_`), ordered by number. A `.sql` file named otherwise is refused rather than
 * silently skipped, and so are two files with one number and an empty file; files that are not
 * `.sql` (a README) are left alone.
 *
 * @example
 * ```ts
 * const migrations = await readMigrations(new URL('../../migrations', import.meta.url));
 * await migrate(db, migrations);
 * ```
 */
export async function readMigrations(dir: string | URL): Promise<Migration[]> {
  const folder = dir instanceof URL ? fileURLToPath(dir) : dir;
  const entries = await readdir(folder, { withFileTypes: true });
  const names = entries.filter((entry) => !entry.isDirectory() && /\.sql$/i.test(entry.name)).map((entry) => entry.name).sort();
  const numbers = new Map<string, string>();
  for (const name of names) {
    const match = MIGRATION_FILE_NAME.exec(name);
    if (!match) {
      throw new MigrationFileError(
        `${path.join(folder, name)} is not named like a migration: rename it NNNN_name.sql (four digits, then lower-case letters, digits or _).`,
      );
    }
    const number = match[1] ?? '';
    const other = numbers.get(number);
    if (other !== undefined) {
      throw new MigrationFileError(`${other} and ${name} share the number ${number}: give ${name} the next free number.`);
    }
    numbers.set(number, name);
  }
  return Promise.all(names.map(async (name) => {
    const text = await readFile(path.join(folder, name), 'utf8');
    if (splitStatements(text).length === 0) {
      throw new MigrationFileError(`${path.join(folder, name)} holds no statement: write the migration, or remove the file.`);
    }
    return { name, sql: text };
  }));
}
