import { afterEach, describe, expect, it } from 'vitest';
import { type Database } from '../../functions/inbox/index.js';
import { migrationChecksum } from '../../functions/inbox/internal.js';
import { randomBytes } from 'node:crypto';
import {
  DatabaseRoleError, inboxMigrations, migrate, MigrationChecksumError, MigrationFailedError, migrateWithRoles, type Migration,
} from '../../functions/inbox/migrations/index.js';
import { emptyDatabase, type FreshDatabase } from '../support/database.js';
import { drivers, type DriverTarget } from '../support/drivers.js';

const customers: Migration = { name: '0001_customers.sql', sql: 'CREATE TABLE customers (id int PRIMARY KEY, name text NOT NULL);\n' };
// Depends on 0001: applying out of order would fail on the missing table.
const invoices: Migration = {
  name: '0002_invoices.sql',
  sql: 'CREATE TABLE invoices (id int PRIMARY KEY, customer_id int NOT NULL REFERENCES customers);\nCREATE INDEX invoices_customer ON invoices (customer_id);\n',
};
const seed: Migration = { name: '0003_seed.sql', sql: "INSERT INTO customers VALUES (1, 'first');\nINSERT INTO invoices VALUES (10, 1);\n" };

interface Opened { fresh: FreshDatabase; db: Database }

describe.each(drivers)('the migration runner on $name', (driver: DriverTarget) => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  /** A database with nothing in it, reached through the driver under test. */
  async function empty(): Promise<Opened> {
    const fresh = await emptyDatabase();
    closers.push(() => fresh.close());
    return { fresh, db: await open(fresh.url) };
  }

  async function open(url: string): Promise<Database> {
    const opened = await driver.open(url);
    closers.push(() => opened.close());
    return opened.db;
  }

  async function recorded(fresh: FreshDatabase): Promise<{ name: string; checksum: string }[]> {
    return (await fresh.pool.query<{ name: string; checksum: string }>('SELECT name, checksum FROM schema_migrations ORDER BY name')).rows;
  }

  async function exists(fresh: FreshDatabase, relation: string): Promise<boolean> {
    return (await fresh.pool.query<{ found: boolean }>('SELECT to_regclass($1) IS NOT NULL AS found', [relation])).rows[0]?.found ?? false;
  }

  describe('applies pending migrations in order and records each with its checksum', () => {
    it('applies every migration to an empty database, in the order given', async () => {
      const { fresh, db } = await empty();

      const report = await migrate(db, [customers, invoices, seed]);

      expect(report).toEqual({ applied: ['0001_customers.sql', '0002_invoices.sql', '0003_seed.sql'], alreadyApplied: [] });
      expect(await recorded(fresh)).toEqual([customers, invoices, seed].map((m) => ({ name: m.name, checksum: migrationChecksum(m.sql) })));
      expect((await fresh.pool.query('SELECT id, customer_id FROM invoices')).rows).toEqual([{ id: 10, customer_id: 1 }]);
    });

    it('applies nothing on a second run', async () => {
      const { fresh, db } = await empty();
      await migrate(db, [customers, invoices]);

      const again = await migrate(db, [customers, invoices]);

      expect(again).toEqual({ applied: [], alreadyApplied: ['0001_customers.sql', '0002_invoices.sql'] });
      expect(await recorded(fresh)).toHaveLength(2);
    });

    it('applies only the migrations added since the last run', async () => {
      const { fresh, db } = await empty();
      await migrate(db, [customers]);

      const report = await migrate(db, [customers, invoices, seed]);

      expect(report).toEqual({ applied: ['0002_invoices.sql', '0003_seed.sql'], alreadyApplied: ['0001_customers.sql'] });
      expect((await fresh.pool.query('SELECT count(*)::int AS n FROM customers')).rows[0]).toEqual({ n: 1 });
    });

    it("the kit's own migrations alone build the inbox, its kept messages and the outbox, with none of the reference app's roles or tables", async () => {
      const { fresh, db } = await empty();

      const report = await migrate(db, await inboxMigrations());

      expect(report.applied).toEqual(['sqs-inbox/0001_consumed_message.sql', 'sqs-inbox/0002_role_password.sql', 'sqs-inbox/0003_outbox_message.sql', 'sqs-inbox/0004_kept_message.sql', 'sqs-inbox/0005_outbox_trace_parent.sql', 'sqs-inbox/0006_operator_audit.sql', 'sqs-inbox/0007_kit_run.sql']);
      const tables = await fresh.pool.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`);
      expect(tables.rows.map((r: { table_name: string }) => r.table_name)).toEqual(['consumed_message', 'kept_message', 'kit_run', 'operator_audit', 'outbox_group', 'outbox_message', 'schema_migrations']);
    });

    it("builds the kit's schema under names of its own: consumed_message as the design has it, and the role password function", async () => {
      const { fresh, db } = await empty();

      const report = await migrate(db, [...await inboxMigrations(), customers]);

      expect(report.applied).toEqual(['sqs-inbox/0001_consumed_message.sql', 'sqs-inbox/0002_role_password.sql', 'sqs-inbox/0003_outbox_message.sql', 'sqs-inbox/0004_kept_message.sql', 'sqs-inbox/0005_outbox_trace_parent.sql', 'sqs-inbox/0006_operator_audit.sql', 'sqs-inbox/0007_kit_run.sql', '0001_customers.sql']);
      const columns = await fresh.pool.query(`SELECT column_name, data_type, is_nullable, column_default
        FROM information_schema.columns WHERE table_name = 'consumed_message' ORDER BY ordinal_position`);
      expect(columns.rows).toEqual([
        { column_name: 'consumer_name', data_type: 'text', is_nullable: 'NO', column_default: null },
        { column_name: 'message_id', data_type: 'text', is_nullable: 'NO', column_default: null },
        { column_name: 'status', data_type: 'text', is_nullable: 'NO', column_default: "'processed'::text" },
        { column_name: 'payload_hash', data_type: 'text', is_nullable: 'NO', column_default: null },
        { column_name: 'processed_at', data_type: 'timestamp with time zone', is_nullable: 'NO', column_default: 'now()' },
        { column_name: 'error', data_type: 'text', is_nullable: 'YES', column_default: null },
      ]);
      const indexes = await fresh.pool.query(`SELECT indexdef FROM pg_indexes WHERE tablename = 'consumed_message'`);
      expect(indexes.rows.map((r: { indexdef: string }) => r.indexdef.replace(/ public\./g, ' ')).sort()).toEqual([
        'CREATE INDEX consumed_message_processed_at ON consumed_message USING btree (processed_at)',
        'CREATE UNIQUE INDEX consumed_message_pkey ON consumed_message USING btree (consumer_name, message_id)',
      ]);
      await expect(fresh.pool.query(`INSERT INTO consumed_message (consumer_name, message_id, status, payload_hash) VALUES ('c', 'm', 'done', 'h')`))
        .rejects.toThrow(/check constraint/);
      expect((await fresh.pool.query("SELECT to_regprocedure('inbox_set_role_password(text, text)') IS NOT NULL AS found")).rows[0]).toEqual({ found: true });
    });

    it('takes a database migrated before the kit\'s migrations had names of their own: they run, and change nothing there', async () => {
      const { fresh, db } = await empty();
      const [table, passwords, outbox] = await inboxMigrations();
      // As the kit shipped them before: the same tables and function, recorded under a project's names.
      await migrate(db, [
        { name: '0001_consumed_message.sql', sql: table!.sql.replaceAll(' IF NOT EXISTS', '') },
        { name: '0003_database_roles.sql', sql: passwords!.sql.replace('CREATE OR REPLACE FUNCTION', 'CREATE FUNCTION') },
        { name: '0004_outbox_message.sql', sql: outbox!.sql.replaceAll(' IF NOT EXISTS', '') },
      ]);
      await fresh.pool.query("INSERT INTO consumed_message (consumer_name, message_id, payload_hash) VALUES ('c', 'kept', 'h')");

      const report = await migrate(db, await inboxMigrations());

      expect(report).toEqual({ applied: ['sqs-inbox/0001_consumed_message.sql', 'sqs-inbox/0002_role_password.sql', 'sqs-inbox/0003_outbox_message.sql', 'sqs-inbox/0004_kept_message.sql', 'sqs-inbox/0005_outbox_trace_parent.sql', 'sqs-inbox/0006_operator_audit.sql', 'sqs-inbox/0007_kit_run.sql'], alreadyApplied: [] });
      expect((await fresh.pool.query('SELECT message_id FROM consumed_message')).rows).toEqual([{ message_id: 'kept' }]);
    });
  });

  describe('refuses an applied migration whose file changed', () => {
    it('throws MigrationChecksumError naming the file, and applies nothing of that run', async () => {
      const { fresh, db } = await empty();
      await migrate(db, [customers]);
      const edited: Migration = { ...customers, sql: customers.sql.replace('name text NOT NULL', 'name text') };

      const refusal = migrate(db, [edited, invoices]);

      await expect(refusal).rejects.toThrow(MigrationChecksumError);
      await expect(refusal).rejects.toThrow(/0001_customers\.sql changed after it was applied.*add a new migration/);
      expect(await exists(fresh, 'invoices')).toBe(false);
      expect(await recorded(fresh)).toEqual([{ name: customers.name, checksum: migrationChecksum(customers.sql) }]);
    });
  });

  describe('rolls a failing run back entirely', () => {
    it('throws MigrationFailedError naming the file and the statement, and leaves no table and no record behind', async () => {
      const { fresh, db } = await empty();
      const broken: Migration = { name: '0002_broken.sql', sql: 'CREATE TABLE half (id int);\nINSERT INTO missing_table VALUES (1);\n' };

      const failure = await migrate(db, [customers, broken, seed]).catch((error: unknown) => error);

      expect(failure).toBeInstanceOf(MigrationFailedError);
      expect(failure).toMatchObject({ migration: '0002_broken.sql', statementNumber: 2, statement: 'INSERT INTO missing_table VALUES (1)', sqlState: '42P01' });
      expect((failure as Error).message).toMatch(/Migration 0002_broken\.sql failed at statement 2 of 2 \(INSERT INTO missing_table VALUES \(1\)\): .*missing_table/);
      expect(await exists(fresh, 'customers')).toBe(false);
      expect(await exists(fresh, 'half')).toBe(false);
      expect(await exists(fresh, 'schema_migrations')).toBe(false);
    });

    it('applies the fixed migration on the next run', async () => {
      const { fresh, db } = await empty();
      const broken: Migration = { name: '0002_later.sql', sql: 'CREATE TABLE later (id int REFERENCES nowhere);' };
      await expect(migrate(db, [customers, broken])).rejects.toThrow(MigrationFailedError);

      const report = await migrate(db, [customers, { ...broken, sql: 'CREATE TABLE later (id int REFERENCES customers);' }]);

      expect(report.applied).toEqual(['0001_customers.sql', '0002_later.sql']);
      expect(await exists(fresh, 'later')).toBe(true);
    });
  });

  describe('serializes concurrent runners', () => {
    it('lets two runners on two connections both succeed, each migration applied once', async () => {
      const { fresh, db } = await empty();
      const other = await open(fresh.url);
      // Holds the lock long enough for the second runner to arrive while the first is still at work;
      // without the lock both would create customers and one would fail.
      const slow: Migration = { name: '0000_slow.sql', sql: 'SELECT pg_sleep(0.3);' };
      const list = [slow, customers, invoices, seed];

      const [first, second] = await Promise.all([migrate(db, list), migrate(other, list)]);

      const names = list.map((m) => m.name);
      expect([first, second].map((r) => r.applied.length).sort()).toEqual([0, 4]);
      expect([...first.applied, ...second.applied]).toEqual(names);
      expect([...first.alreadyApplied, ...second.alreadyApplied]).toEqual(names);
      expect(await recorded(fresh)).toHaveLength(4);
      expect((await fresh.pool.query('SELECT count(*)::int AS n FROM invoices')).rows[0]).toEqual({ n: 1 });
    });
  });

  describe('sends each statement of a file on its own', () => {
    it("keeps a ';' inside a string and inside a dollar-quoted function body", async () => {
      const { fresh, db } = await empty();
      const tricky: Migration = {
        name: '0001_tricky.sql',
        sql: [
          "CREATE TABLE notes (id int PRIMARY KEY, body text NOT NULL DEFAULT 'a;b');",
          '-- a comment; with a semicolon',
          'CREATE FUNCTION note_label(n notes) RETURNS text LANGUAGE plpgsql AS $fn$',
          'BEGIN',
          "  RETURN n.id::text || ';' || n.body;",
          'END;',
          '$fn$;',
          'INSERT INTO notes (id) VALUES (1);',
        ].join('\n'),
      };

      await migrate(db, [tricky]);

      expect((await fresh.pool.query('SELECT body, note_label(notes) AS label FROM notes')).rows).toEqual([{ body: 'a;b', label: '1;a;b' }]);
    });
  });

  describe('migrateWithRoles: the run InboxDatabase makes, for a test of a project\'s own', () => {
    it('makes the roles before the project\'s migrations, which grant their tables to them, then grants the kit\'s table', async () => {
      const { fresh, db } = await empty();
      const role = `mwr_${driver.name.replace('-', '_')}_${randomBytes(4).toString('hex')}`;
      const grants: Migration = { name: '0001_orders.sql', sql: `CREATE TABLE orders (id int PRIMARY KEY);\nGRANT SELECT ON orders TO ${role};` };

      const report = await migrateWithRoles(db, { migrations: [...await inboxMigrations(), grants], roles: [{ role, access: 'consumer' }] });

      expect(report.applied).toEqual(['sqs-inbox/0001_consumed_message.sql', 'sqs-inbox/0002_role_password.sql', 'sqs-inbox/0003_outbox_message.sql', 'sqs-inbox/0004_kept_message.sql', 'sqs-inbox/0005_outbox_trace_parent.sql', 'sqs-inbox/0006_operator_audit.sql', 'sqs-inbox/0007_kit_run.sql', '0001_orders.sql']);
      const may = async (table: string, privilege: string) => (await fresh.pool.query<{ may: boolean }>(
        'SELECT has_table_privilege($1, $2, $3) AS may', [role, table, privilege])).rows[0]!.may;
      expect([await may('orders', 'SELECT'), await may('consumed_message', 'INSERT'), await may('consumed_message', 'DELETE')]).toEqual([true, true, false]);
      const again = await migrateWithRoles(db, { migrations: [...await inboxMigrations(), grants], roles: [{ role, access: 'consumer' }] });
      expect(again.applied).toEqual([]);
    });

    it('refuses a role name the kit would not make before touching the database', async () => {
      const { fresh, db } = await empty();
      const attempt = migrateWithRoles(db, { migrations: [customers], roles: [{ role: 'Orders"; DROP TABLE x; --', access: 'consumer' }] });
      await expect(attempt).rejects.toThrow(DatabaseRoleError);
      await expect(attempt).rejects.toThrow(/cannot be a role of the kit's: a role is 1 to 57 lower-case letters/);
      await expect(migrateWithRoles(db, { migrations: [customers], roles: [{ role: 'orders_clone', access: 'consumer' }] })).rejects.toThrow(/not ending in _clone/);
      expect(await exists(fresh, 'customers')).toBe(false);
    });
  });
});
