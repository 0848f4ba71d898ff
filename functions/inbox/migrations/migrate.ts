import type { Database, Transaction } from '../database/database.js';
import { InboxConfigError } from '../errors.js';
import { migrationChecksum } from './checksum.js';
import { MigrationChecksumError, MigrationFailedError } from './errors.js';
import { splitStatements } from '../sql/sql-text.js';
import { sql, SqlStatement } from '../sql/sql.js';

/** One migration: its file name (which orders it and is recorded) and its SQL text. */
export interface Migration {
  /** The file name, for example `0001_consumed_message.sql`; recorded in schema_migrations. */
  readonly name: string;
  /** The script; split into statements at the semicolons that are code. */
  readonly sql: string;
}

/** What a `migrate` run did. */
export interface MigrationReport {
  /** Migrations applied by this run, in order. */
  readonly applied: string[];
  /** Migrations of the list found already applied (by this or an earlier run). */
  readonly alreadyApplied: string[];
}

function checkList(migrations: readonly Migration[]): void {
  if (!Array.isArray(migrations)) throw new InboxConfigError('migrate needs a list of migrations: pass await readMigrations(dir).');
  const seen = new Set<string>();
  for (const migration of migrations) {
    if (typeof migration?.name !== 'string' || migration.name === '' || typeof migration.sql !== 'string') {
      throw new InboxConfigError('Each migration needs a name and its sql text: pass await readMigrations(dir).');
    }
    if (seen.has(migration.name)) throw new InboxConfigError(`Migration ${migration.name} is listed twice: give each file once.`);
    seen.add(migration.name);
  }
}

async function applyOne(tx: Transaction, migration: Migration): Promise<void> {
  const statements = splitStatements(migration.sql);
  for (const [index, text] of statements.entries()) {
    try {
      // Migration text is project code, not input: it is run as written, one statement a call,
      // because the Data API refuses multi-statement SQL.
      await tx.query(new SqlStatement([text], []));
    } catch (error) {
      throw new MigrationFailedError(migration.name, index + 1, statements.length, text, error);
    }
  }
  await tx.query(sql`INSERT INTO schema_migrations (name, checksum) VALUES (${migration.name}, ${migrationChecksum(migration.sql)})`);
}

/**
 * Applies the migrations not yet applied, in the order given, and records each with its sha-256
 * checksum in `schema_migrations`. The run is one transaction under a transaction-level advisory
 * lock (the Data API has no session), so concurrent runners wait for each other and each migration
 * is applied once; a failing statement rolls the whole run back. An applied migration whose text
 * changed is refused before anything runs. Applied names missing from the list are left alone.
 * Every statement runs inside that transaction, so a migration cannot use
 * `CREATE INDEX CONCURRENTLY` or other statements PostgreSQL refuses in a transaction block.
 *
 * @example
 * ```ts
 * const db = dataApiDatabaseFromEnv();
 * const { applied } = await migrate(db, await readMigrations(new URL('../../migrations', import.meta.url)));
 * ```
 */
export async function migrate(db: Database, migrations: readonly Migration[]): Promise<MigrationReport> {
  checkList(migrations);
  return db.transaction(async (tx) => {
    // A constant in the text, not a bound value: any key works as long as every runner uses it
    // (ASCII "inboxmig"), and a bound one would reach the Data API as varchar.
    await tx.query(sql`SELECT pg_advisory_xact_lock(7597117852321933671)`);
    await tx.query(sql`CREATE TABLE IF NOT EXISTS schema_migrations (
      name       text        PRIMARY KEY,
      checksum   text        NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const { rows } = await tx.query<{ name: string; checksum: string }>(sql`SELECT name, checksum FROM schema_migrations`);
    const recorded = new Map(rows.map((row) => [row.name, row.checksum]));

    const alreadyApplied: string[] = [];
    const pending: Migration[] = [];
    for (const migration of migrations) {
      const checksum = recorded.get(migration.name);
      if (checksum === undefined) {
        pending.push(migration);
      } else if (checksum !== migrationChecksum(migration.sql)) {
        throw new MigrationChecksumError(migration.name, checksum, migrationChecksum(migration.sql));
      } else {
        alreadyApplied.push(migration.name);
      }
    }

    for (const migration of pending) await applyOne(tx, migration);
    return { applied: pending.map((migration) => migration.name), alreadyApplied };
  });
}
