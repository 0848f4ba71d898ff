import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

/** A Data API emulator running in a process of its own. */
export interface DataApiProcess {
  readonly endpoint: string;
  /** Stops the process and waits for it to exit. */
  close(): Promise<void>;
}

const CLI = fileURLToPath(new URL('../bin/data-api.ts', import.meta.url));
const READY = /emulator on (http:\/\/127\.0\.0\.1:\d+)/;

/**
 * Starts `bin/data-api.ts` (startDataApi on 127.0.0.1 with the latency given) in a child process,
 * so a benchmark's client does not pay for the emulator's HTTP, JSON and pg work on its own event
 * loop, as a Lambda does not pay for the service's.
 *
 * @example
 * ```ts
 * const emulator = await startDataApiProcess(scratch.url, 10);
 * const db = localDataApiDatabase(localDataApiClient(emulator.endpoint), 'bench');
 * ```
 */
export async function startDataApiProcess(databaseUrl: string, latencyMs: number): Promise<DataApiProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, '--latency-ms', String(latencyMs)], {
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(child, 'exit');
  const endpoint = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const ready = READY.exec(output);
      if (ready) resolve(ready[1]!);
    });
    child.once('error', reject);
    void exited.then(([code]) => reject(new Error(`the Data API emulator exited with ${String(code)} before it listened:\n${output}`)));
  });
  return {
    endpoint,
    close: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
