import pg from 'pg';
import type { DataApiCredentials } from './secrets.js';
import { badRequest, serviceUnavailable } from './service-errors.js';

/** Every value as the server's text: the operations format fields by column type themselves. */
const TEXT_TYPES: pg.CustomTypesConfig = { getTypeParser: () => (value: string) => value };
const DATABASE_NAME_MAX = 64;
// Connections are reused as the service reuses them: opening one per transaction costs a backend each time.
const AUTOCOMMIT_POOL_SIZE = 20;
// An autocommit call waits this long for a free connection, then is refused rather than queued for ever.
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * Connections to the databases of one PostgreSQL server, as Aurora's Data API keeps them: a pool per
 * database and signed-in user for autocommit calls, and a connection of its own per open
 * transaction. A call signs in as its secret's user, or as the URL's user when it brings no
 * credentials. Sessions run in UTC with the Data API's statement timeout.
 *
 * @example
 * ```ts
 * const connections = new Connections('postgres://postgres@127.0.0.1:5432/postgres', 45_000, 100);
 * const pool = connections.pool('app');
 * ```
 */
export class Connections {
  private readonly pools = new Map<string, pg.Pool>();
  private readonly transactionPools = new Map<string, pg.Pool>();
  private readonly server: URL;

  public constructor(databaseUrl: string, private readonly statementTimeoutMs: number, private readonly maxTransactions: number) {
    this.server = new URL(databaseUrl);
  }

  /** The database of the URL the emulator was started with, used when a request names none. */
  public get defaultDatabase(): string {
    return decodeURIComponent(this.server.pathname.replace(/^\//, '')) || 'postgres';
  }

  private config(database: string | undefined, login: DataApiCredentials | undefined): pg.ClientConfig {
    const name = this.databaseName(database);
    if (name.length > DATABASE_NAME_MAX) throw badRequest(`database must be at most ${DATABASE_NAME_MAX} characters.`);
    const url = new URL(this.server.toString());
    url.pathname = `/${encodeURIComponent(name)}`;
    if (login !== undefined) {
      url.username = encodeURIComponent(login.username);
      url.password = encodeURIComponent(login.password);
    }
    return {
      connectionString: url.toString(),
      types: TEXT_TYPES,
      statement_timeout: this.statementTimeoutMs,
      options: '-c TimeZone=UTC',
      application_name: 'local-data-api',
    };
  }

  /** The name a request's `database` resolves to. */
  public databaseName(database: string | undefined): string {
    return database === undefined || database === '' ? this.defaultDatabase : database;
  }

  /** The pool of autocommit calls on a database, signed in as `login` (else the URL's user). */
  public pool(database: string | undefined, login?: DataApiCredentials): pg.Pool {
    return this.poolOf(this.pools, database, login, AUTOCOMMIT_POOL_SIZE);
  }

  /**
   * A connection of its own for one transaction, from the database's pool of transaction
   * connections (apart from the autocommit pool, so open transactions never starve it). The caller
   * releases it, destroying it when it may be in a bad state. When every one is taken the call is
   * refused at once, never queued: a BeginTransaction that waited for a connection would begin a
   * transaction after its caller had given up (its function timed out or died), which nobody then
   * commits or rolls back and which holds a connection until its idle timeout, so the pool of
   * abandoned transactions would refill itself and never drain.
   */
  public async client(database: string | undefined, login?: DataApiCredentials): Promise<pg.PoolClient> {
    const pool = this.poolOf(this.transactionPools, database, login, this.maxTransactions);
    const refused = () => serviceUnavailable(`All ${this.maxTransactions} transaction connections are in use; commit or roll back open transactions.`);
    if (pool.totalCount >= this.maxTransactions && pool.idleCount === 0) throw refused();
    try {
      return await pool.connect();
    } catch (error) {
      if (error instanceof Error && /timeout exceeded when trying to connect/i.test(error.message)) throw refused();
      throw error;
    }
  }

  private poolOf(pools: Map<string, pg.Pool>, database: string | undefined, login: DataApiCredentials | undefined, max: number): pg.Pool {
    const name = this.databaseName(database);
    // A new password (a rotated secret) gets a pool of its own; sessions signed in before keep running, as on a server.
    const key = login === undefined ? name : JSON.stringify([name, login.username, login.password]);
    let pool = pools.get(key);
    if (pool === undefined) {
      pool = new pg.Pool({ ...this.config(name, login), max, idleTimeoutMillis: 10_000, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
      // A dropped idle connection must not take the emulator down; the next call reconnects.
      pool.on('error', () => undefined);
      // Nor one that drops while a call holds it (a database restart): the call gets the error from its query.
      pool.on('connect', (client) => client.on('error', () => undefined));
      pools.set(key, pool);
    }
    return pool;
  }

  /** Ends every pool. */
  public async close(): Promise<void> {
    const pools = [...this.pools.values(), ...this.transactionPools.values()];
    this.pools.clear();
    this.transactionPools.clear();
    await Promise.all(pools.map((pool) => pool.end().catch(() => undefined)));
  }
}
