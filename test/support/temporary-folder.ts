import { chmod, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

// Caches made on purpose, not something left behind: the embedded PostgreSQL's binaries, copied once
// per temporary folder for an account that cannot reach node_modules (local/postgres/binaries.ts),
// and Node.js's module compile cache, which npm 11 turns on in the temporary folder of every npm and
// npx it starts (the installed-package test's, on Node.js 22 and later).
const INTENDED_CACHE = /^(sqs-inbox-postgres-|node-compile-cache$)/;

/** A temporary folder of one test run's own, and what is left in it. */
export interface RunTemporaryFolder {
  readonly folder: string;
  /** What the run left in the folder, the intended cache aside, sorted. */
  leftovers(): Promise<string[]>;
  /** Removes the folder and everything in it, and gives the process its temporary folder back. */
  remove(): Promise<void>;
}

/**
 * Makes a folder of the run's own inside the temporary folder and points TMPDIR at it, so every test
 * worker (started after this, with this environment) writes its temporary files there: what a run
 * leaves behind is told apart from what other programs on the machine put in the shared folder.
 * Anyone may enter it (mode 1777, as the temporary folder itself), since the embedded PostgreSQL runs
 * as its own account when the tests run as root.
 */
export async function runTemporaryFolder(base = os.tmpdir()): Promise<RunTemporaryFolder> {
  const folder = await mkdtemp(path.join(base, 'sqs-inbox-test-run-'));
  await chmod(folder, 0o1777);
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = folder;
  return {
    folder,
    leftovers: async () => (await readdir(folder)).filter((name) => !INTENDED_CACHE.test(name)).sort(),
    async remove() {
      if (previous === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previous;
      await rm(folder, { recursive: true, force: true });
    },
  };
}
