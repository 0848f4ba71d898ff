import { startDataApi, type DataApiStats, type RunningDataApi } from '../../local/data-api/index.js';

/** The Data API emulator, restartable on its port, with its answers counted across the restarts. */
export interface RestartableDataApi {
  readonly endpoint: string;
  pause(ms: number): void;
  /** Stops the emulator (its open transactions end, its connections close), waits `downMs`, starts it on the same port. */
  restart(downMs: number): Promise<void>;
  stats(): DataApiStats;
  close(): Promise<void>;
}

const added = (a: Readonly<Record<string, number>>, b: Readonly<Record<string, number>>) => {
  const sum: Record<string, number> = { ...a };
  for (const [name, count] of Object.entries(b)) sum[name] = (sum[name] ?? 0) + count;
  return sum;
};

/**
 * Starts the Data API emulator so that it can be restarted where clients find it: a client's
 * calls while it is down are refused at the socket, as a service endpoint that went away; after
 * the start its sockets are new and its transactions unknown (TransactionNotFoundException).
 *
 * @example
 * ```ts
 * const api = await restartableDataApi(databaseUrl, 3000);
 * await api.restart(1000);
 * ```
 */
export async function restartableDataApi(databaseUrl: string, idleTimeoutMs: number): Promise<RestartableDataApi> {
  let running: RunningDataApi = await startDataApi({ databaseUrl, idleTimeoutMs });
  const port = Number(new URL(running.endpoint).port);
  let before: DataApiStats = { calls: {}, total: 0, errors: {}, openTransactions: 0 };
  const stats = () => {
    const now = running.stats();
    return { calls: added(before.calls, now.calls), total: before.total + now.total, errors: added(before.errors, now.errors), openTransactions: now.openTransactions };
  };
  return {
    endpoint: running.endpoint,
    pause: (ms) => running.pause(ms),
    async restart(downMs) {
      before = { ...stats(), openTransactions: 0 };
      await running.close();
      await new Promise((resolve) => setTimeout(resolve, downMs));
      running = await startDataApi({ databaseUrl, idleTimeoutMs, port });
    },
    stats,
    close: () => running.close(),
  };
}
