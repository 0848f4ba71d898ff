import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { RDSDataClient } from '@aws-sdk/client-rds-data';
import { processBatch, sql, type Database, type InboxOptions, type SqlStatement } from '../functions/inbox/index.js';
import { cleanupInbox } from '../functions/inbox/cleanup/index.js';
import { pgDatabase } from '../functions/inbox/pg/index.js';
import { uuidv7 } from '../functions/inbox/internal.js';
import { localDataApiDatabase } from '../local/data-api/index.js';
import { migrateReferenceDatabase } from '../demo/reference-database.js';
import { createScratchDatabase } from '../local/scratch-database.js';
import { lambdaContext, sqsRecord } from '../test/support/sqs-events.js';
import type { DataApiProcess } from './data-api-process.js';
import { deliver, type InvocationShape } from './sqs-invocations.js';

export type Mode = 'statement' | 'transaction';

/** Where a run happens: the server, the emulator's process in front of it, one client per environment. */
export interface ScaleSetup {
  readonly serverUrl: string;
  readonly emulator: DataApiProcess;
  /** One RDS Data client per Lambda environment, kept across its invocations as a warm Lambda keeps it. */
  readonly clients: readonly RDSDataClient[];
  readonly shape: InvocationShape;
}

/** What one run at one size cost. */
export interface ScaleFigures {
  readonly mode: Mode;
  readonly messages: number;
  readonly wallMs: number;
  /** User plus system CPU of this process (the workers) during the deliveries. */
  readonly workerCpuMs: number;
  /** The same of the emulator's process, for comparison. */
  readonly emulatorCpuMs: number;
  readonly dataApiCalls: number;
  readonly dataApiErrors: number;
  readonly invocations: number;
  readonly redeliveries: number;
  readonly parked: number;
  /** consumed_message rows and orders shipped once, read from the database after the run. */
  readonly inboxRows: number;
  readonly shipped: number;
  readonly tableBytes: number;
  /** The rows' own bytes (each tuple and its line pointer): what the table holds beyond free space. */
  readonly rowBytes: number;
  readonly indexBytes: number;
  readonly cleanup: { readonly ms: number; readonly deleted: number; readonly batches: number };
  /** The machine's 1-minute load average when the deliveries began and when they ended. */
  readonly load: readonly [number, number];
}

const DAY_MS = 86_400_000;
const SEED_CHUNK = 10_000;
const CONSUMER = 'bench-scale';

const ship = (orderId: string): SqlStatement => sql`UPDATE orders SET status = 'shipped', version = version + 1 WHERE order_id = ${sql.uuid(orderId)}`;

/** The bench's consumer: each message ships its order, one UPDATE, in statement or transaction mode. */
export function shippingOptions(mode: Mode, db: Database): InboxOptions<{ orderId: string }> {
  return mode === 'statement'
    ? { consumer: CONSUMER, db, statement: (order) => ship(order.orderId) }
    : { consumer: CONSUMER, db, handle: async (order, { tx }) => { await tx.query(ship(order.orderId)); } };
}

const cpuMs = (used: NodeJS.CpuUsage) => (used.user + used.system) / 1000;

/**
 * `messages` orders shipped through `processBatch` in `mode` on the Data API driver, on a database of
 * their own (migrated, one pending order per message), delivered as `setup.shape` says. Each message
 * carries a UUIDv7 `idempotency-key`, as the kit's producer sends it. After the deliveries it reads
 * the inbox table's size, then ages every row by a day and times `cleanupInbox` with a retention of
 * one day purging them through the same driver. `during` runs around the deliveries only (a profiler).
 *
 * @example
 * ```ts
 * const figures = await scaleRun(setup, 'statement', 10_000);
 * ```
 */
export async function scaleRun(
  setup: ScaleSetup, mode: Mode, messages: number,
  during: (deliveries: () => Promise<void>) => Promise<void> = (deliveries) => deliveries(),
): Promise<ScaleFigures> {
  const scratch = await createScratchDatabase(setup.serverUrl, 'bench_scale');
  const direct = pgDatabase({ connectionString: scratch.url, max: 2 });
  try {
    await migrateReferenceDatabase(direct);
    const orderIds = Array.from({ length: messages }, () => randomUUID());
    for (let start = 0; start < messages; start += SEED_CHUNK) {
      const chunk = orderIds.slice(start, start + SEED_CHUNK);
      await direct.query(sql`INSERT INTO orders (order_id) SELECT unnest(${`{${chunk.join(',')}}`}::uuid[])`);
    }
    await direct.query(sql`VACUUM ANALYZE orders`);
    // The producer's part (message ids, keys) made before the clock starts: only the consumer is measured.
    const messageIds = Array.from({ length: messages }, () => randomUUID());
    const keys = Array.from({ length: messages }, () => uuidv7());
    const environments = setup.clients.map((client) => shippingOptions(mode, localDataApiDatabase(client, scratch.name)));

    // As warm Lambda environments have them, each client's connections are open before the clock
    // starts: the emulator closes idle ones after 5 s, and reopening them is a fixed cost a run
    // would otherwise charge to its messages (a small run's above all).
    await Promise.all(environments.map(({ db }) => Promise.all(Array.from({ length: setup.shape.batchSize }, () => db.query(sql`SELECT 1`)))));
    const before = await setup.emulator.resetStats();
    const load: [number, number] = [os.loadavg()[0]!, 0];
    const cpu = process.cpuUsage();
    const started = performance.now();
    let delivered = { invocations: 0, redeliveries: 0, parked: 0 };
    await during(async () => {
      delivered = await deliver(messages, (i) => sqsRecord({ orderId: orderIds[i] }, { messageId: messageIds[i], key: keys[i] }), setup.shape,
        (environment, event) => processBatch(event, lambdaContext(), environments[environment]!));
    });
    const wallMs = performance.now() - started;
    const workerCpuMs = cpuMs(process.cpuUsage(cpu));
    load[1] = os.loadavg()[0]!;
    const after = await setup.emulator.stats();

    const { rows: [size] } = await direct.query<{ table_bytes: string; row_bytes: string; index_bytes: string; rows: number; shipped: number }>(sql`
      SELECT pg_relation_size('consumed_message') AS table_bytes, pg_indexes_size('consumed_message') AS index_bytes,
        (SELECT count(*)::int FROM consumed_message) AS rows,
        (SELECT coalesce(sum(pg_column_size(c.*) + 4), 0)::bigint FROM consumed_message c) AS row_bytes,
        (SELECT count(*)::int FROM orders WHERE status = 'shipped' AND version = 1) AS shipped`);

    // A day passes: every row is moved a day back in one statement, then vacuumed so the cleanup
    // meets a table as rows that aged in place leave it (no dead versions, fresh statistics).
    await direct.query(sql`UPDATE consumed_message SET processed_at = processed_at - make_interval(secs => ${DAY_MS / 1000})`);
    await direct.query(sql`VACUUM ANALYZE consumed_message`);
    const cleanupStarted = performance.now();
    const report = await cleanupInbox(environments[0]!.db, { retentionMs: DAY_MS });
    const cleanupMs = performance.now() - cleanupStarted;

    return {
      mode, messages, wallMs, workerCpuMs,
      emulatorCpuMs: cpuMs(after.cpu) - cpuMs(before.cpu),
      dataApiCalls: after.stats.total,
      dataApiErrors: Object.values(after.stats.errors).reduce((sum, n) => sum + n, 0),
      ...delivered,
      inboxRows: size!.rows,
      shipped: size!.shipped,
      tableBytes: Number(size!.table_bytes),
      rowBytes: Number(size!.row_bytes),
      indexBytes: Number(size!.index_bytes),
      cleanup: { ms: cleanupMs, deleted: report.deleted, batches: report.batches },
      load,
    };
  } finally {
    await direct.close();
    await scratch.drop();
  }
}
