import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { SQSRecord } from 'aws-lambda';
import pg from 'pg';
import { migrate, pgDatabase, processBatch, readMigrations, type OutcomeKind } from '../../functions/inbox/index.js';
import { shipOrderOptions } from '../../functions/order-worker/ship-order.js';
import { startPostgres } from '../postgres.js';
import { faultyDatabase, type FaultCounts } from './faulty-database.js';
import { seededRandom } from './seeded-random.js';

/** Options of the batch demo. */
export interface BatchDemoOptions {
  /** Orders to ship. */
  readonly orders: number;
  /** Share of database calls that crash (half before, half after commit). */
  readonly faultRate: number;
  /** Share of orders that the producer sends twice (a new messageId, the same key). */
  readonly producerRetryRate: number;
  /** Poison messages mixed in (bodies that are not JSON or fail the schema). */
  readonly poison: number;
  readonly seed: number;
  /** Lambda invocations running at once. */
  readonly invocations: number;
  readonly maxReceiveCount: number;
  readonly onProgress?: (done: number, total: number) => void;
}

/** What the run did, read back from the database at the end. */
export interface BatchDemoReport {
  sent: number;
  uniqueOrders: number;
  applied: number;
  duplicatesSuppressed: number;
  rejected: number;
  redeliveries: number;
  inDlq: number;
  doubleEffects: number;
  lost: number;
  faults: FaultCounts;
  outcomes: Record<OutcomeKind, number>;
  seconds: number;
}

interface Queued {
  record: SQSRecord;
  receives: number;
}

function shipMessage(orderId: string, key: string): SQSRecord {
  return sqsLike(JSON.stringify({ orderId }), key);
}

function sqsLike(body: string, key: string): SQSRecord {
  const now = String(Date.now());
  return {
    messageId: randomUUID(),
    receiptHandle: randomUUID(),
    body,
    attributes: { ApproximateReceiveCount: '1', SentTimestamp: now, SenderId: 'demo', ApproximateFirstReceiveTimestamp: now },
    messageAttributes: { 'idempotency-key': { dataType: 'String', stringValue: key, stringListValues: [], binaryListValues: [] } },
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:local:000000000000:orders',
    awsRegion: 'local',
  };
}

function lambdaContext(): Parameters<typeof processBatch>[1] {
  const deadline = Date.now() + 30_000;
  return {
    callbackWaitsForEmptyEventLoop: false, functionName: 'order-worker', functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:order-worker', memoryLimitInMB: '512',
    awsRequestId: randomUUID(), logGroupName: 'local', logStreamName: 'local',
    getRemainingTimeInMillis: () => deadline - Date.now(), done: () => undefined, fail: () => undefined, succeed: () => undefined,
  };
}

/**
 * The local demo before the local stack: embedded PostgreSQL, the migrations, and the order worker
 * fed batches of ten from an in-memory queue that redelivers what the batch response reports, with
 * producer retries, poison messages and crashes before and after commit injected. The report is
 * read from the database, not from the worker's own counts.
 *
 * @example
 * ```ts
 * const report = await runBatchDemo({ orders: 2000, faultRate: 0.05, producerRetryRate: 0.1, poison: 20, seed: 1, invocations: 4, maxReceiveCount: 5 });
 * ```
 */
export async function runBatchDemo(options: BatchDemoOptions): Promise<BatchDemoReport> {
  const started = Date.now();
  const random = seededRandom(options.seed);
  const server = await startPostgres();
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  const name = `inbox_demo_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(server.url);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: options.invocations * 10 + 2 });
  pool.on('error', () => undefined);
  const realDb = pgDatabase({ pool });
  try {
    await migrate(realDb, await readMigrations(fileURLToPath(new URL('../../migrations', import.meta.url))));
    const orderIds = Array.from({ length: options.orders }, () => randomUUID());
    await pool.query('INSERT INTO orders (order_id) SELECT unnest($1::uuid[])', [orderIds]);

    const queue: Queued[] = [];
    for (const orderId of orderIds) {
      queue.push({ record: shipMessage(orderId, `ship-${orderId}`), receives: 0 });
      if (random() < options.producerRetryRate) queue.push({ record: shipMessage(orderId, `ship-${orderId}`), receives: 0 });
    }
    for (let i = 0; i < options.poison; i += 1) {
      const body = i % 2 === 0 ? `{"orderId": ${i}` : JSON.stringify({ orderId: `not-a-uuid-${i}` });
      queue.splice(Math.floor(random() * queue.length), 0, { record: sqsLike(body, `poison-${i}`), receives: 0 });
    }
    const sent = queue.length;

    const { db, faults } = faultyDatabase(realDb, options.faultRate, random);
    const outcomes: Record<OutcomeKind, number> = { processed: 0, duplicate: 0, collision: 0, rejected: 0, failed: 0, skipped: 0 };
    const worker = shipOrderOptions(db, { onOutcome: (o) => { outcomes[o.kind] += 1; } });
    let redeliveries = 0;
    let inDlq = 0;
    let settled = 0;

    const invocation = async () => {
      while (queue.length > 0) {
        const batch = queue.splice(0, 10);
        for (const item of batch) {
          item.receives += 1;
          item.record = { ...item.record, attributes: { ...item.record.attributes, ApproximateReceiveCount: String(item.receives) } };
        }
        const response = await processBatch({ Records: batch.map((item) => item.record) }, lambdaContext(), worker);
        const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
        for (const item of batch) {
          if (!failed.has(item.record.messageId)) settled += 1;
          else if (item.receives >= options.maxReceiveCount) { inDlq += 1; settled += 1; }
          else { redeliveries += 1; queue.push(item); }
        }
        options.onProgress?.(settled, sent);
      }
    };
    await Promise.all(Array.from({ length: options.invocations }, invocation));

    const counts = await pool.query<{ applied: number; double: number; pending: number; rejected: number }>(`
      SELECT (SELECT count(*)::int FROM orders WHERE version >= 1) AS applied,
             (SELECT count(*)::int FROM orders WHERE version > 1) AS double,
             (SELECT count(*)::int FROM orders WHERE version = 0) AS pending,
             (SELECT count(*)::int FROM consumed_message WHERE status = 'rejected') AS rejected`);
    const row = counts.rows[0]!;
    return {
      sent,
      uniqueOrders: options.orders,
      applied: row.applied,
      duplicatesSuppressed: outcomes.duplicate,
      rejected: row.rejected,
      redeliveries,
      inDlq,
      doubleEffects: row.double,
      // An order neither shipped nor parked in the DLQ was lost.
      lost: Math.max(0, row.pending - inDlq),
      faults,
      outcomes,
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    await pool.end();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
    await server.close();
  }
}
