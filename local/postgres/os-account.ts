import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { PostgresSetupError } from './postgres-errors.js';

/** An operating-system account a child process runs as. */
export interface OsAccount {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
}

const SERVER_ACCOUNT = 'postgres';

function lookup(name: string): OsAccount | undefined {
  try {
    const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    return Number.isInteger(uid) && Number.isInteger(gid) ? { name, uid, gid } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The account the server runs as: none (the current one) unless we are root, since PostgreSQL
 * refuses to run as root; then the `postgres` account, created when the machine has none.
 *
 * @example
 * ```ts
 * postgresAccount() // { name: 'postgres', uid: 101, gid: 104 } as root, undefined otherwise
 * ```
 */
export function postgresAccount(): OsAccount | undefined {
  if (os.userInfo().uid !== 0) return undefined;
  const found = lookup(SERVER_ACCOUNT);
  if (found) return found;
  try {
    execFileSync('groupadd', ['--system', SERVER_ACCOUNT], { stdio: 'ignore' });
  } catch {
    // The group may exist without the user.
  }
  execFileSync('useradd', ['--system', '--gid', SERVER_ACCOUNT, '--no-create-home', SERVER_ACCOUNT], { stdio: 'ignore' });
  const created = lookup(SERVER_ACCOUNT);
  if (!created) throw new PostgresSetupError('PostgreSQL cannot run as root and no postgres account could be made: create one (useradd postgres) or set DATABASE_URL.');
  return created;
}
