import { InboxError } from '../errors.js';
import { sqlStateOf } from '../sql/sql-state.js';

/**
 * An applied migration's file changed since it was applied. Nothing was applied by this run.
 *
 * @example
 * ```ts
 * await expect(migrate(db, edited)).rejects.toThrow(MigrationChecksumError);
 * ```
 */
export class MigrationChecksumError extends InboxError {
  public readonly migration: string;
  public constructor(migration: string, recorded: string, current: string) {
    super(
      `Migration ${migration} changed after it was applied (recorded sha-256 ${recorded}, the file now has ${current}). ` +
      'An applied migration must never change: restore the file and add a new migration with the change.',
    );
    this.name = 'MigrationChecksumError';
    this.migration = migration;
  }
}

/**
 * A statement of a migration failed. The whole run was rolled back: no migration of it is applied
 * or recorded.
 *
 * @example
 * ```ts
 * catch (error) { if (error instanceof MigrationFailedError) console.error(error.migration, error.statement); }
 * ```
 */
export class MigrationFailedError extends InboxError {
  public readonly migration: string;
  /** 1-based position of the failed statement in its file. */
  public readonly statementNumber: number;
  public readonly statement: string;
  public readonly sqlState: string | undefined;
  public constructor(migration: string, statementNumber: number, statementCount: number, statement: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      `Migration ${migration} failed at statement ${statementNumber} of ${statementCount} (${excerpt(statement)}): ${reason}. ` +
      'The run was rolled back and nothing was applied: fix that migration and run again.',
      { cause },
    );
    this.name = 'MigrationFailedError';
    this.migration = migration;
    this.statementNumber = statementNumber;
    this.statement = statement;
    this.sqlState = sqlStateOf(cause);
  }
}


function excerpt(statement: string): string {
  const oneLine = statement.replace(/\s+/g, ' ').trim();
  return oneLine.length > 120 ? `${oneLine.slice(0, 117)}...` : oneLine;
}

/**
 * A migrations folder holds a file that cannot be ordered or applied: badly named, numbered
 * twice, or without a statement. The message names the file and the fix.
 *
 * @example
 * ```ts
 * await expect(readMigrations('migrations-with-a-typo')).rejects.toThrow(MigrationFileError);
 * ```
 */
export class MigrationFileError extends InboxError {
  public constructor(message: string) {
    super(message);
    this.name = 'MigrationFileError';
  }
}

/**
 * A database role the migrations were asked to manage cannot be one of the kit's: its name is not
 * one the kit makes, or a role of that name exists that the kit did not make (an application's, or
 * a privileged one such as the owner). The message names the role and what to change; nothing was
 * changed.
 *
 * @example
 * ```ts
 * await expect(migrateWithRoles(db, { migrations, roles: [{ role: 'postgres', access: 'consumer' }] })).rejects.toThrow(DatabaseRoleError);
 * ```
 */
export class DatabaseRoleError extends InboxError {
  public constructor(message: string) {
    super(message);
    this.name = 'DatabaseRoleError';
  }
}
