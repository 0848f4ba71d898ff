import { createHash } from 'node:crypto';

/** A migration file as the hash sees it: its name and its text. */
export interface HashedMigration {
  readonly name: string;
  readonly sql: string;
}

/**
 * sha-256 over the names and texts of a set of migrations, in name order (hex). The stack computes
 * it at synth time from the migrations folder (lib/migrations-hash.ts) and puts it on the
 * migrations custom resource; the migrate function computes it from the files it bundles and acts
 * only on an Update that carries its own hash. Both call this one function, so the two can never
 * drift apart: it is pure and imports only node:crypto, which is why eslint.config.js lets lib/
 * import exactly this runtime file.
 *
 * @example
 * ```ts
 * migrationsHashOf(await readMigrations(dir)) === event.ResourceProperties.MigrationsHash
 * ```
 */
export function migrationsHashOf(migrations: readonly HashedMigration[]): string {
  const hash = createHash('sha256');
  for (const { name, sql } of [...migrations].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    hash.update(name).update('\0').update(sql, 'utf8').update('\0');
  }
  return hash.digest('hex');
}
