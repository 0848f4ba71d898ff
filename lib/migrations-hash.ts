import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * sha-256 over the names and contents of the `.sql` files of a folder, in name order. The
 * migrations custom resource carries it as a property, so a changed, added or removed migration
 * changes the template and CloudFormation runs the migrations on that deploy.
 *
 * @example
 * ```ts
 * new CustomResource(this, 'Migrations', { serviceToken, properties: { MigrationsHash: migrationsHash('migrations') } });
 * ```
 */
export function migrationsHash(dir: string): string {
  const hash = createHash('sha256');
  for (const name of readdirSync(dir).filter((file) => file.endsWith('.sql')).sort()) {
    hash.update(name).update('\0').update(readFileSync(path.join(dir, name))).update('\0');
  }
  return hash.digest('hex');
}
