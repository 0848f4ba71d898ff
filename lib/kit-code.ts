import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// This module sits in lib/ of the repository and in dist/lib/ of the package: one level up is the
// root of the kit's code either way (the repository, or dist/).
const ROOT = new URL('../', import.meta.url);

/**
 * The absolute path of a file or folder of the kit, `relative` to its root, whether the constructs
 * run from the repository or from an installed package (its `dist/`).
 *
 * @example
 * ```ts
 * kitPath('functions/inbox/migrations/sql') // .../node_modules/sqs-inbox/dist/functions/inbox/migrations/sql
 * ```
 */
export function kitPath(relative: string): string {
  return fileURLToPath(new URL(relative, ROOT));
}

/**
 * The entry of one of the kit's functions (`functions/migrate/index`, without extension): its
 * TypeScript source in the repository, which esbuild bundles from source, or its compiled `.js` in
 * an installed package, which has no source.
 *
 * @example
 * ```ts
 * inboxFunction(this, 'Migrate', { entry: kitEntry('functions/migrate/index'), ... });
 * ```
 */
export function kitEntry(relative: string): string {
  const source = kitPath(`${relative}.ts`);
  return existsSync(source) ? source : kitPath(`${relative}.js`);
}
