import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { KIT_MIGRATION_PREFIX, MIGRATION_FILE_NAME } from '../../functions/inbox/contract.js';
import { migrationsHashOf } from '../../functions/inbox/migrations/migrations-hash.js';
import { InfraConfigError } from '../infra-config-error.js';
import { kitPath } from '../kit-code.js';

/** The kit's own migrations, as the package ships them (`inboxMigrations()` reads the same folder). */
export const KIT_MIGRATIONS_DIR = kitPath('functions/inbox/migrations/sql');

function isFolder(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** A migration file as the hash sees it. */
interface SqlFile {
  readonly name: string;
  readonly sql: string;
}

/**
 * The `.sql` files of a migrations folder, refusing at synth what `readMigrations` would refuse at
 * deploy: a folder that is not there, a `.sql` file named otherwise than `NNNN_name.sql`, two files
 * of one number.
 *
 * @example
 * ```ts
 * sqlFiles('migrations') // [{ name: '0002_orders.sql', sql: 'CREATE TABLE orders ...' }]
 * ```
 */
export function sqlFiles(dir: string): SqlFile[] {
  if (!isFolder(dir)) throw new InfraConfigError(`The migrations folder ${JSON.stringify(dir)} is not a folder: give the path of the folder that holds your NNNN_name.sql files.`);
  const names = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => !entry.isDirectory() && /\.sql$/i.test(entry.name)).map((entry) => entry.name).sort();
  const numbers = new Map<string, string>();
  for (const name of names) {
    const number = MIGRATION_FILE_NAME.exec(name)?.[1];
    if (number === undefined) {
      throw new InfraConfigError(`${path.join(dir, name)} is not named like a migration: rename it NNNN_name.sql (four digits, then lower-case letters, digits or _).`);
    }
    const other = numbers.get(number);
    if (other !== undefined) throw new InfraConfigError(`${other} and ${name} in ${dir} share the number ${number}: give ${name} the next free number.`);
    numbers.set(number, name);
  }
  return names.map((name) => ({ name, sql: readFileSync(path.join(dir, name), 'utf8') }));
}

/**
 * The hash of everything one migrations run applies: the kit's migrations, named as they are
 * recorded (`sqs-inbox/0001_consumed_message.sql`), and the project's folder, if any
 * (`migrationsHashOf`, the one implementation the migrate function also runs). The migrations custom
 * resource carries it as a property, so a changed, added or removed migration changes the template
 * and CloudFormation runs the migrations on that deploy; the function compares it with the hash of
 * what it bundles.
 *
 * @example
 * ```ts
 * new CustomResource(this, 'Migrations', { serviceToken, properties: { MigrationsHash: migrationsHash('migrations') } });
 * ```
 */
export function migrationsHash(projectDir?: string): string {
  const kit = sqlFiles(KIT_MIGRATIONS_DIR).map(({ name, sql }) => ({ name: `${KIT_MIGRATION_PREFIX}${name}`, sql }));
  return migrationsHashOf([...kit, ...(projectDir === undefined ? [] : sqlFiles(projectDir))]);
}
