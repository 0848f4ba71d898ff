import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTemporaryFolder } from '../support/temporary-folder.js';

describe("a run's temporary folder, which the run's teardown checks", () => {
  it('takes the temporary files of what starts after it, names what is left but the PostgreSQL binaries cache and Node.js\'s compile cache, and goes away whole', async () => {
    const outer = os.tmpdir();
    const run = await runTemporaryFolder();
    try {
      expect(os.tmpdir()).toBe(run.folder);
      expect(await run.leftovers()).toEqual([]);
      await writeFile(path.join(os.tmpdir(), 'stray.txt'), 'x');
      await mkdir(path.join(os.tmpdir(), 'cdk.outAbc123'));
      await mkdir(path.join(os.tmpdir(), 'sqs-inbox-postgres-18.4-linux-x64'));
      await mkdir(path.join(os.tmpdir(), 'node-compile-cache'));
      await mkdir(path.join(os.tmpdir(), 'node-compile-cache-not'));
      expect(await run.leftovers()).toEqual(['cdk.outAbc123', 'node-compile-cache-not', 'stray.txt']);
    } finally {
      await run.remove();
    }
    expect(os.tmpdir()).toBe(outer);
    expect(existsSync(run.folder)).toBe(false);
  });
});
