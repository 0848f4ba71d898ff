import pg from 'pg';
import { badRequest } from './service-errors.js';

/** Every value as the server's text: the operations format fields by column type themselves. */
const TEXT_TYPES: pg.CustomTypesConfig = { getTypeParser: () => (value: string) => value };
const DATABASE_NAME_MAX = 64;

/**
 * Connections to the databases of one PostgreSQL server, as Aurora's Data API keeps them: a pool per
 * database for autocommit calls, and a client of its own per transaction. Sessions run in UTC with
 * the Data API's statement timeout.
 *
 * @example
 * ```ts
 * const connections = new Connections('postgres://postgres@127.0.0.1:5432/postgres', 45_000);
 * const pool = connections.pool('app');
 * ```
 */
export class Connections {
  private readonly pools = new Map<string, pg.Pool>();
  private readonly server: URL;

  public constructor(databaseUrl: string, private readonly statementTimeoutMs: number) {
    this.server = new URL(databaseUrl);
  }

  /** The database of the URL the emulator was started with, used when a request names none. */
  public get defaultDatabase(): string {
    return decodeURIComponent(this.server.pathname.replace(/^\//, '')) || 'postgres';
  }

  private config(database: string | undefined): pg.ClientConfig {
    const name = this.databaseName(database);
    if (name.length > DATABASE_NAME_MAX) throw badRequest(`database must be at most ${DATABASE_NAME_MAX} characters.`);
    const url = new URL(this.server.toString());
    url.pathname = `/${encodeURIComponent(name)}`;
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

  /** The pool of autocommit calls on a database. */
  public pool(database: string | undefined): pg.Pool {
    const name = this.databaseName(database);
    let pool = this.pools.get(name);
    if (pool === undefined) {
      pool = new pg.Pool({ ...this.config(name), max: 20, idleTimeoutMillis: 10_000 });
      // A dropped idle connection must not take the emulator down; the next call reconnects.
      pool.on('error', () => undefined);
      this.pools.set(name, pool);
    }
    return pool;
  }

  /** A connected client of its own, for one transaction. */
  public async client(database: string | undefined): Promise<pg.Client> {
    const client = new pg.Client(this.config(database));
    client.on('error', () => undefined);
    try {
      await client.connect();
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    return client;
  }

  /** Ends every pool. */
  public async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((pool) => pool.end().catch(() => undefined)));
  }
}
