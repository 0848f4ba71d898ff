import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_MIGRATIONS_DIR } from '../../demo/reference-database.js';
import { emptyDatabase, type FreshDatabase } from '../support/database.js';

let empty: FreshDatabase;
let migration: string;

beforeAll(async () => {
  empty = await emptyDatabase();
  migration = await readFile(path.join(REFERENCE_MIGRATIONS_DIR, '0007_shipment_notices.sql'), 'utf8');
});

afterAll(async () => {
  await empty.close();
});

describe('0007_shipment_notices grants the notice worker its table only when its role exists', () => {
  it('with notice_worker: INSERT on shipment_notice and its sequence, nothing to read', async () => {
    const client = await empty.pool.connect();
    try {
      // Roles are the server's: made and dropped inside a transaction no other test sees.
      await client.query('BEGIN');
      await client.query('CREATE ROLE notice_worker');
      await client.query(migration);
      const { rows: [privileges] } = await client.query(`SELECT has_table_privilege('notice_worker', 'shipment_notice', 'INSERT') AS insert,
        has_table_privilege('notice_worker', 'shipment_notice', 'SELECT') AS select,
        has_sequence_privilege('notice_worker', 'shipment_notice_notice_id_seq', 'USAGE') AS sequence`);
      expect(privileges).toEqual({ insert: true, select: false, sequence: true });
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it('without it: the table is made and no grant is tried', async () => {
    const client = await empty.pool.connect();
    try {
      await client.query('BEGIN');
      expect((await client.query("SELECT 1 FROM pg_roles WHERE rolname = 'notice_worker'")).rowCount).toBe(0);
      await client.query(migration);
      expect((await client.query("SELECT to_regclass('shipment_notice') IS NOT NULL AS made")).rows).toEqual([{ made: true }]);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });
});
