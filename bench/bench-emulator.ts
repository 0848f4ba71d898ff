import type { Database } from '../functions/inbox/index.js';
import { localDataApiClient, localDataApiDatabase } from '../local/data-api/index.js';
import { openDataApi } from '../test/support/data-api.js';
import { countCalls } from './call-counter.js';
import { startDataApiProcess } from './data-api-process.js';

/** Where a benchmark's Data API emulator runs: in a process of its own (the default), or in the benchmark's. */
export type EmulatorPlace = 'process' | 'inline';

/** The Data API driver through the emulator, the calls its client sent, and how to stop both. */
export interface BenchEmulator {
  readonly db: Database;
  calls(): number;
  close(): Promise<void>;
}

/**
 * The Data API driver on a database through the emulator with a simulated latency per call. In a
 * process of its own the emulator's CPU stays out of the benchmark's process, as the service's
 * stays out of Lambda's.
 *
 * @example
 * ```ts
 * const local = await openBenchEmulator(scratch.url, 10, 'process');
 * ```
 */
export async function openBenchEmulator(databaseUrl: string, latencyMs: number, place: EmulatorPlace): Promise<BenchEmulator> {
  if (place === 'inline') {
    const local = await openDataApi(databaseUrl, { latencyMs });
    return { db: local.db, calls: () => local.api.stats().total, close: () => local.close() };
  }
  const emulator = await startDataApiProcess(databaseUrl, latencyMs);
  const client = localDataApiClient(emulator.endpoint);
  const counter = countCalls(client);
  const db = localDataApiDatabase(client, new URL(databaseUrl).pathname.slice(1));
  return { db, calls: counter.calls, close: async () => { await db.close(); client.destroy(); await emulator.close(); } };
}
