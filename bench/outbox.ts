/**
 * What the outbox costs a statement-mode batch on the Data API: the same batch of orders with and
 * without an outbox row a message (sent after the commit to a FIFO queue on the local SQS, then
 * marked), on the Data API emulator with a simulated per-call latency, measured in the same run.
 * Prints Data API calls per message and per batch, the median batch time of each, the time the
 * outbox adds and the ratio; exits 1 when the outbox costs more than one call a message or more
 * than 2 calls a batch beyond them (the issue's bound).
 *
 *   npm run bench:outbox -- --latency 10 --batch 10 --groups 3 --rounds 7
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { SQSRecord } from 'aws-lambda';
import { processBatch, sql, type StatementModeOptions } from '../functions/inbox/index.js';
import { sqsTarget } from '../functions/inbox/outbox/index.js';
import { pgDatabase } from '../functions/inbox/pg/index.js';
import { startPostgres } from '../local/postgres/index.js';
import { createScratchDatabase } from '../local/scratch-database.js';
import { createQueue, localSqsClient, startSqs } from '../local/sqs/index.js';
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

type Ship = { orderId: string; customerId: string };
const ship = (order: Ship) => sql`UPDATE orders SET status = 'shipped', version = version + 1 WHERE order_id = ${sql.uuid(order.orderId)}`;

const server = await startPostgres();
const scratch = await createScratchDatabase(server.url, 'bench_outbox');
const setupDb = pgDatabase({ connectionString: scratch.url, max: 2 });
await migrateReferenceDatabase(setupDb);
const orderIds = Array.from({ length: BATCH }, () => randomUUID());
await setupDb.query(sql`INSERT INTO orders (order_id) SELECT unnest(${`{${orderIds.join(',')}}`}::uuid[])`);
await setupDb.close();

const local = await openDataApi(scratch.url, { latencyMs: LATENCY_MS });
const sqs = await startSqs();
const sqsClient = localSqsClient(sqs.endpoint);
const { queueUrl } = await createQueue(sqsClient, 'shipped.fifo');

/** A fresh FIFO batch (new keys, so every message is a fresh claim), spread over the groups. */
function batch(): SQSRecord[] {
  return orderIds.map((orderId, i) => sqsRecord({ orderId, customerId: `customer-${i % GROUPS}` }, { groupId: `customer-${i % GROUPS}`, key: randomUUID() }));
}

function options(outbox: boolean): StatementModeOptions<Ship> {
  const base = { consumer: `bench-outbox-${outbox}`, db: local.db, statement: ship };
  return outbox
    ? { ...base, outbox: { targets: { shipped: sqsTarget({ queueUrl, client: sqsClient }) }, messages: (order) => [{ target: 'shipped', body: { shipped: order.orderId }, groupId: order.customerId }] } }
    : base;
}

/** Median milliseconds of one batch, and Data API calls per batch. */
async function measure(outbox: boolean): Promise<{ ms: number; calls: number }> {
  const times: number[] = [];
  let calls = 0;
  for (let round = 0; round < ROUNDS; round += 1) {
    local.api.resetStats();
    const started = performance.now();
    const response = await processBatch(sqsEvent(...batch()), lambdaContext(), options(outbox));
    times.push(performance.now() - started);
    if (response.batchItemFailures.length > 0) throw new Error(`${response.batchItemFailures.length} messages failed`);
    calls = local.api.stats().total;
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)]!, calls };
}

// Warm the connections, the emulators and the JIT, so neither side is charged for them.
await measure(true);
await measure(false);

const bare = await measure(false);
const withOutbox = await measure(true);
const { rows: [left] } = await local.db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM outbox_message WHERE dispatched_at IS NULL`);

console.log(`Statement mode, FIFO batch of ${BATCH} in ${GROUPS} groups, Data API emulator at ${LATENCY_MS} ms per call, median of ${ROUNDS} rounds`);
console.log('                 calls/batch  calls/message  batch ms');
console.log(`without outbox   ${String(bare.calls).padStart(11)}  ${(bare.calls / BATCH).toFixed(2).padStart(13)}  ${bare.ms.toFixed(1).padStart(8)}`);
console.log(`with outbox      ${String(withOutbox.calls).padStart(11)}  ${(withOutbox.calls / BATCH).toFixed(2).padStart(13)}  ${withOutbox.ms.toFixed(1).padStart(8)}`);
console.log(`the outbox adds  ${String(withOutbox.calls - bare.calls).padStart(11)}  ${((withOutbox.calls - bare.calls) / BATCH).toFixed(2).padStart(13)}  ${(withOutbox.ms - bare.ms).toFixed(1).padStart(8)}`
  + `  (${(withOutbox.ms / bare.ms).toFixed(2)}x the batch; ${((withOutbox.ms - bare.ms) / LATENCY_MS).toFixed(1)} calls' latency; rows left undispatched: ${left?.n ?? 0})`);

sqsClient.destroy();
await sqs.close();
await local.close();
await scratch.drop();
await server.close();
const extraCalls = withOutbox.calls - bare.calls;
if (bare.calls !== BATCH || extraCalls > 2 || Number(left?.n ?? 0) > 0) {
  console.error(`FAIL: statement mode with an outbox must cost 1 call a message plus at most 2 a batch, all rows sent (got ${withOutbox.calls} for ${BATCH}, ${left?.n ?? 0} left)`);
  process.exit(1);
}
