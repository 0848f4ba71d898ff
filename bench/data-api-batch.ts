/**
 * One SQS batch through the Data API driver with a simulated per-call latency: statement mode and
 * transaction mode, on a standard queue and on FIFO with several groups, beside the sequential
 * one-message-after-another baseline (what Powertools' SQS FIFO processor does: one record at a time),
 * measured in the same run on the same emulator. Prints milliseconds per batch (median of the rounds),
 * the speed-up over the baseline and the Data API calls per message.
 *
 *   npm run bench:data-api -- --latency 10 --batch 10 --groups 3 --rounds 7
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { SQSRecord } from 'aws-lambda';
import { processBatch, sql, type InboxOptions } from '../functions/inbox/index.js';
import { pgDatabase } from '../functions/inbox/pg/index.js';
import { startPostgres } from '../local/postgres/index.js';
import { createScratchDatabase } from '../local/scratch-database.js';
import { openDataApi } from '../test/support/data-api.js';
import { lambdaContext, sqsEvent, sqsRecord } from '../test/support/sqs-events.js';
import { migrateReferenceDatabase } from '../demo/reference-database.js';

// One line instead of the AWS SDK's paragraph about Node.js 22.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const { values: args } = parseArgs({
  options: {
    latency: { type: 'string', default: '10' },
    batch: { type: 'string', default: '10' },
    groups: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '7' },
  },
});
const LATENCY_MS = Number(args.latency);
const BATCH = Number(args.batch);
const GROUPS = Number(args.groups);
const ROUNDS = Number(args.rounds);

type Ship = { orderId: string };
type Mode = 'statement' | 'transaction';
type Queue = 'standard' | 'fifo';

const ship = (orderId: string) => sql`UPDATE orders SET status = 'shipped', version = version + 1 WHERE order_id = ${sql.uuid(orderId)}`;

const server = await startPostgres();
const scratch = await createScratchDatabase(server.url, 'bench');
const setupDb = pgDatabase({ connectionString: scratch.url, max: 2 });
await migrateReferenceDatabase(setupDb);
const orderIds = Array.from({ length: BATCH }, () => randomUUID());
await setupDb.query(sql`INSERT INTO orders (order_id) SELECT unnest(${`{${orderIds.join(',')}}`}::uuid[])`);
await setupDb.close();

const local = await openDataApi(scratch.url, { latencyMs: LATENCY_MS });

/** A fresh batch (new messageIds, so every message is a fresh claim), FIFO records spread over the groups. */
function batch(queue: Queue): SQSRecord[] {
  return orderIds.map((orderId, i) => sqsRecord({ orderId }, queue === 'fifo' ? { groupId: `group-${i % GROUPS}` } : {}));
}

function options(mode: Mode, concurrency: number): InboxOptions<Ship> {
  const base = { consumer: `bench-${mode}-${concurrency}`, db: local.db, concurrency };
  return mode === 'statement'
    ? { ...base, statement: (order) => ship(order.orderId) }
    : { ...base, handle: async (order, { tx }) => { await tx.query(ship(order.orderId)); } };
}

/** Median milliseconds of one batch, and Data API calls per message. */
async function measure(mode: Mode, queue: Queue, concurrency: number): Promise<{ ms: number; callsPerMessage: number }> {
  const times: number[] = [];
  let calls = 0;
  for (let round = 0; round < ROUNDS; round += 1) {
    const records = batch(queue);
    local.api.resetStats();
    const started = performance.now();
    const response = await processBatch(sqsEvent(...records), lambdaContext(), options(mode, concurrency));
    times.push(performance.now() - started);
    if (response.batchItemFailures.length > 0) throw new Error(`${mode}/${queue}: ${response.batchItemFailures.length} messages failed`);
    calls = local.api.stats().total;
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)]!, callsPerMessage: calls / BATCH };
}

// Warm the connections and the emulator's type cache, so the first scenario is not charged for them.
await measure('transaction', 'standard', BATCH);

console.log(`Data API batch of ${BATCH}, ${LATENCY_MS} ms per call, FIFO in ${GROUPS} groups, median of ${ROUNDS} rounds`);
console.log('mode         queue     batch ms  sequential ms  speed-up  calls/message');
for (const mode of ['statement', 'transaction'] as const) {
  for (const queue of ['standard', 'fifo'] as const) {
    const kit = await measure(mode, queue, BATCH);
    const sequential = await measure(mode, queue, 1);
    console.log([
      mode.padEnd(12), queue.padEnd(9), kit.ms.toFixed(1).padStart(8), sequential.ms.toFixed(1).padStart(14),
      `${(sequential.ms / kit.ms).toFixed(2)}x`.padStart(9), String(kit.callsPerMessage).padStart(14),
    ].join(' '));
  }
}

await local.close();
await scratch.drop();
await server.close();
