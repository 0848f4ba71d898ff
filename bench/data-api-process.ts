import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { DataApiStats } from '../local/data-api/index.js';

/** What the emulator's process has answered and the CPU it has used, as it tells its parent. */
export interface DataApiProcessStats {
  readonly stats: DataApiStats;
  /** `process.cpuUsage()` of the emulator's process since it started, in microseconds. */
  readonly cpu: NodeJS.CpuUsage;
}

/** A Data API emulator running in a process of its own. */
export interface DataApiProcess {
  readonly endpoint: string;
  /** The calls answered since the start or the last `resetStats()`, and the process's CPU so far. */
  stats(): Promise<DataApiProcessStats>;
  /** Starts the call counts again from zero. */
  resetStats(): Promise<DataApiProcessStats>;
  /** Stops the process and waits for it to exit. */
  close(): Promise<void>;
}

const CLI = fileURLToPath(new URL('../bin/data-api.ts', import.meta.url));
const READY = /emulator on (http:\/\/127\.0\.0\.1:\d+)/;

/**
 * Starts `bin/data-api.ts` (startDataApi on 127.0.0.1 with the latency given) in a child process,
 * so a benchmark's client does not pay for the emulator's HTTP, JSON and pg work on its own event
 * loop, as a Lambda does not pay for the service's. `databaseUrl` names the default database; a
 * call may name any other database of the server. Its stats come over an IPC channel.
 *
 * @example
 * ```ts
 * const emulator = await startDataApiProcess(scratch.url, 10);
 * const db = localDataApiDatabase(localDataApiClient(emulator.endpoint), 'bench');
 * const { stats } = await emulator.stats(); // stats.total: calls answered
 * ```
 */
export async function startDataApiProcess(databaseUrl: string, latencyMs: number): Promise<DataApiProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, '--latency-ms', String(latencyMs)], {
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const exited = once(child, 'exit');
  const endpoint = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const ready = READY.exec(output);
      if (ready) resolve(ready[1]!);
    });
    child.once('error', reject);
    void exited.then(([code]) => reject(new Error(`the Data API emulator exited with ${String(code)} before it listened:\n${output}`)));
  });
  // The child answers each request in the order asked.
  const waiting: ((answer: DataApiProcessStats) => void)[] = [];
  child.on('message', (answer) => waiting.shift()?.(answer as DataApiProcessStats));
  const ask = (request: 'stats' | 'reset-stats') => new Promise<DataApiProcessStats>((resolve, reject) => {
    if (!child.connected) {
      reject(new Error('the Data API emulator process has exited'));
      return;
    }
    waiting.push(resolve);
    child.send(request);
  });
  return {
    endpoint,
    stats: () => ask('stats'),
    resetStats: () => ask('reset-stats'),
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
