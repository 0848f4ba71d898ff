import { spawn, type ChildProcess } from 'node:child_process';
import { chown, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { PostgresBinaries } from './binaries.js';
import type { OsAccount } from './os-account.js';
import { PostgresError } from './postgres-errors.js';

/** What one server needs: its programs, the account it runs as, its folder, port and flags. */
export interface ServerSpec {
  readonly binaries: PostgresBinaries;
  readonly account: OsAccount | undefined;
  /** A folder of its own; the data folder and the password file go inside. */
  readonly folder: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  readonly flags: readonly string[];
  readonly log: (line: string) => void;
}

const READY = 'database system is ready to accept connections';
const STOP_GRACE_MS = 10_000;
const START_TIMEOUT_MS = 60_000;

function dataDir(spec: ServerSpec): string {
  return path.join(spec.folder, 'data');
}

/** Runs a program as the server's account, with its output sent to the log; resolves with its exit code. */
function run(spec: ServerSpec, program: string, args: readonly string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { ...spec.account, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
    child.stdout.on('data', (chunk: Buffer) => spec.log(chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => spec.log(chunk.toString('utf8')));
    // A program that cannot start (EACCES, ENOENT) says so here, never as an unhandled 'error' event.
    child.once('error', reject);
    child.once('close', (code) => resolve(code ?? -1));
  });
}

/**
 * Makes a new cluster in the spec's folder with initdb (UTF-8, C locale, scram-sha-256 for TCP),
 * owned by the server's account.
 *
 * @example
 * ```ts
 * await initCluster(spec);
 * ```
 */
export async function initCluster(spec: ServerSpec): Promise<void> {
  await mkdir(dataDir(spec), { recursive: true, mode: 0o700 });
  const passwordFile = path.join(spec.folder, 'pwfile');
  await writeFile(passwordFile, `${spec.password}\n`, { mode: 0o600 });
  if (spec.account) {
    await chown(dataDir(spec), spec.account.uid, spec.account.gid);
    await chown(passwordFile, spec.account.uid, spec.account.gid);
  }
  const code = await run(spec, spec.binaries.initdb, [
    `--pgdata=${dataDir(spec)}`, `--username=${spec.user}`, `--pwfile=${passwordFile}`,
    '--auth=scram-sha-256', '--encoding=UTF8', '--locale=C', '--no-sync',
  ]);
  if (code !== 0) throw new PostgresError(`initdb exited with code ${code}`);
}

/** A running server process, and how to stop it. */
export interface ServerProcess {
  /** Fast shutdown (SIGINT: sessions are ended, open transactions rolled back); SIGKILL after 10 s. */
  stop(): Promise<void>;
}

function stopped(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/**
 * Starts the server on the spec's data folder and resolves once it accepts connections; rejects
 * (never crashes the process) when it exits first or cannot be started.
 *
 * @example
 * ```ts
 * const server = await startServer(spec);
 * await server.stop();
 * ```
 */
export function startServer(spec: ServerSpec): Promise<ServerProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(spec.binaries.postgres, ['-D', dataDir(spec), '-p', String(spec.port), ...spec.flags], {
      ...spec.account,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LC_ALL: 'C' },
    });
    let ready = false;
    const slow = setTimeout(() => {
      if (ready) return;
      child.kill('SIGKILL');
      reject(new PostgresError(`postgres was not ready after ${START_TIMEOUT_MS / 1000} s`));
    }, START_TIMEOUT_MS);
    const onOutput = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      spec.log(text);
      if (!ready && text.includes(READY)) {
        ready = true;
        clearTimeout(slow);
        resolve(handle);
      }
    };
    child.stdout.on('data', onOutput);
    child.stderr.on('data', onOutput);
    child.once('error', (error) => { clearTimeout(slow); if (!ready) reject(error); });
    child.once('exit', (code, signal) => {
      clearTimeout(slow);
      process.off('exit', killOnExit);
      if (!ready) reject(new PostgresError(`postgres exited before it was ready (code ${code ?? 'none'}, signal ${signal ?? 'none'})`));
    });
    // A run that ends without stopping the server must not leave it behind.
    const killOnExit = () => { if (!stopped(child)) child.kill('SIGKILL'); };
    process.on('exit', killOnExit);
    let stopping: Promise<void> | undefined;
    const handle: ServerProcess = {
      stop() {
        stopping ??= new Promise<void>((done) => {
          if (stopped(child)) { done(); return; }
          const force = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
          child.once('exit', () => { clearTimeout(force); done(); });
          child.kill('SIGINT');
        });
        return stopping;
      },
    };
  });
}
