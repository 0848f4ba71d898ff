import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root, with its trailing separator. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The repository's documentation a reader follows: README.md and every page of docs/, as paths
 * from the root, the README first. A page added to docs/ is checked (its snippets, its links) by
 * being there.
 *
 * @example
 * ```ts
 * documentationFiles() // ['README.md', 'docs/configuration.md', 'docs/data-api.md', ...]
 * ```
 */
export function documentationFiles(): string[] {
  const pages = readdirSync(path.join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).sort();
  return ['README.md', ...pages.map((name) => `docs/${name}`)];
}
