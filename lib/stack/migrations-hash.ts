import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { migrationsHashOf } from '../../functions/inbox/migrations/migrations-hash.js';

/**
 * The hash of the `.sql` files of a folder (`migrationsHashOf`, the one implementation the migrate
 * function also runs). The migrations custom resource carries it as a property, so a changed,
 * added or removed migration changes the template and CloudFormation runs the migrations on that
 * deploy; the function compares it with the hash of what it bundles.
 *
 * @example
 * ```ts
 * new CustomResource(this, 'Migrations', { serviceToken, properties: { MigrationsHash: migrationsHash('migrations') } });
 * ```
 */
export function migrationsHash(dir: string): string {
  const files = readdirSync(dir, { withFileTypes: true }).filter((entry) => !entry.isDirectory() && entry.name.endsWith('.sql'));
  return migrationsHashOf(files.map((entry) => ({ name: entry.name, sql: readFileSync(path.join(dir, entry.name), 'utf8') })));
}
