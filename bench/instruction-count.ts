import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Whether valgrind is on PATH, for a benchmark that counts instructions when it can. */
export function hasValgrind(): boolean {
  return spawnSync('valgrind', ['--version'], { stdio: 'ignore' }).status === 0;
}

const COLLECTED = /Collected\s*:\s*(\d+)/;

/**
 * The instructions a Node.js process running `script` executes from start to exit, counted by
 * valgrind's callgrind. A count of instructions is the same on an idle machine and a loaded one,
 * and does not charge the work for the cold caches it meets after waiting on a socket, as CPU
 * seconds do. V8's generated code is counted too (`--smc-check=all`), and V8 runs `--predictable`
 * (its compiler and collector on the main thread, in the same order every run), so two runs of the
 * same script differ by about 0.5% instead of 5-10%. About fifty times slower than the script
 * alone; children the script starts are not counted.
 *
 * @example
 * ```ts
 * const idle = await countInstructions('bench/statement-batch-worker.ts', [...common, '0']);
 * const busy = await countInstructions('bench/statement-batch-worker.ts', [...common, '30']);
 * (busy - idle) / 300 // instructions per message of 30 batches of 10
 * ```
 */
export async function countInstructions(script: string, args: readonly string[]): Promise<number> {
  const folder = await mkdtemp(join(tmpdir(), 'callgrind-'));
  try {
    const child = spawn('valgrind', [
      '--tool=callgrind', '--smc-check=all', `--callgrind-out-file=${join(folder, 'callgrind.out')}`,
      process.execPath, '--predictable', '--import', 'tsx', script, ...args,
    ], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8'); });
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', resolve);
    });
    const collected = COLLECTED.exec(stderr);
    if (code !== 0 || collected === null) throw new Error(`${script} under callgrind exited with ${String(code)}:\n${stderr.slice(-2000)}`);
    return Number(collected[1]);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
