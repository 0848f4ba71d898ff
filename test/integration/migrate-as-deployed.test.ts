import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { RDSDataClient } from '@aws-sdk/client-rds-data';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type Database } from '../../functions/inbox/index.js';
import { dataApiDatabase } from '../../functions/inbox/data-api/index.js';
import { LOCAL_DATA_API_TARGET, localDataApiClient, startDataApi, type RunningDataApi } from '../../local/data-api/index.js';
import { migrateAsDeployed } from '../../local/index.js';
import type { DeployedDatabase } from '../../local/migrate-as-deployed.js';
import { emptyDatabase, type FreshDatabase } from '../support/database.js';
import { thrown } from '../support/thrown.js';

/** A project's migration that grants the consumer one of its tables and not the other. */
const PROJECT_MIGRATION = `CREATE TABLE orders (order_id uuid PRIMARY KEY, status text NOT NULL DEFAULT 'pending');
CREATE TABLE refunds (order_id uuid PRIMARY KEY, status text NOT NULL DEFAULT 'pending');
GRANT SELECT, UPDATE (status) ON orders TO ship_orders;
`;
const ROLES = { ship_orders: 'consumer', local_cleanup: 'cleanup' } as const;

let target: FreshDatabase;
let migrations: string;
let deployed: DeployedDatabase;
let api: RunningDataApi;
let client: RDSDataClient;
let database: string;

/** The kit's Data API driver through the emulator, signed in with the secret `secretArn`. */
const signedIn = (secretArn: string): Database => dataApiDatabase({ resourceArn: LOCAL_DATA_API_TARGET.resourceArn, secretArn, database, client });

beforeAll(async () => {
  target = await emptyDatabase();
  database = decodeURIComponent(new URL(target.url).pathname.slice(1));
  migrations = await mkdtemp(path.join(os.tmpdir(), 'migrate-as-deployed-'));
  await writeFile(path.join(migrations, '0001_orders.sql'), PROJECT_MIGRATION);
  deployed = await migrateAsDeployed(target.url, { migrations, roles: ROLES });
  api = await startDataApi({ databaseUrl: target.url, secrets: deployed.secrets });
  client = localDataApiClient(api.endpoint);
});

afterAll(async () => {
  client?.destroy();
  await api?.close();
  await target?.close();
  if (migrations !== undefined) await rm(migrations, { recursive: true, force: true });
});

describe('migrateAsDeployed: the database as InboxDatabase\'s migrate function leaves it', () => {
  it('applies the kit\'s migrations and the project\'s in one run', () => {
    expect(deployed.applied.filter((name) => name.startsWith('sqs-inbox/')).length).toBeGreaterThan(0);
    expect(deployed.applied.at(-1)).toBe('0001_orders.sql');
  });

  it('signs each role in through the Data API emulator with its own secret, and the owner with the default one', async () => {
    for (const role of Object.keys(ROLES)) {
      const { rows } = await signedIn(deployed.roles[role]!.secretArn).query<{ user: string }>(sql`SELECT current_user AS user`);
      expect(rows).toEqual([{ user: role }]);
    }
    const { rows } = await signedIn(LOCAL_DATA_API_TARGET.secretArn).query<{ user: string }>(sql`SELECT current_user AS user`);
    expect(rows).toEqual([{ user: decodeURIComponent(new URL(target.url).username) }]);
  });

  it('grants each role the kit\'s tables for its access, and no more', async () => {
    const { rows } = await target.pool.query<{ consumer: boolean; cleanup: boolean }>(`SELECT
        has_table_privilege('ship_orders', 'consumed_message', 'INSERT') AS consumer,
        has_table_privilege('local_cleanup', 'consumed_message', 'INSERT') AS cleanup`);
    expect(rows).toEqual([{ consumer: true, cleanup: false }]);
  });

  it('lets the role do what the project\'s migrations grant it, and denies the rest as Aurora does: permission denied, SQLState 42501', async () => {
    const consumer = signedIn(deployed.roles['ship_orders']!.secretArn);
    const orderId = randomUUID();
    await target.pool.query('INSERT INTO orders (order_id) VALUES ($1)', [orderId]);
    await target.pool.query('INSERT INTO refunds (order_id) VALUES ($1)', [orderId]);
    await consumer.query(sql`UPDATE orders SET status = 'shipped' WHERE order_id = ${sql.uuid(orderId)}`);
    const error = await thrown(consumer.query(sql`UPDATE refunds SET status = 'paid' WHERE order_id = ${sql.uuid(orderId)}`));
    expect(error).toMatchObject({ sqlState: '42501' });
    expect(error.message).toMatch(/permission denied for table refunds/);
  });

  it('runs again on the same database with nothing left to apply, the roles signing in as before', async () => {
    const again = await migrateAsDeployed(target.url, { migrations, roles: ROLES });
    expect(again.applied).toEqual([]);
    expect(again.alreadyApplied).toEqual(deployed.applied);
    const { rows } = await signedIn(again.roles['ship_orders']!.secretArn).query<{ user: string }>(sql`SELECT current_user AS user`);
    expect(rows).toEqual([{ user: 'ship_orders' }]);
  });
});
