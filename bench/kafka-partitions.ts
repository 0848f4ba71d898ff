/**
 * One Kafka batch through processKafkaBatch in statement mode on the Data API driver, with a
 * simulated per-call latency: its partitions in parallel (concurrency >= partitions) beside the
 * same records one after another, measured in the same run on the same emulator.
 *
 * The emulator runs in a process of its own by default (`--emulator process`): on Lambda the
 * service's HTTP, JSON and SQL work is not on the function's event loop, and here it would be,
 * charging about half of each call's CPU to the kit. `--emulator inline` runs it in this process,
 * as bench/data-api-batch.ts does.
 *
 * The baseline is the same call with `concurrency: 1`: the same event, the same code path, the same
 * one Data API call per record, so the only difference is how many partitions are in flight. It is
 * what a consumer that walks the batch record by record does. (A loop of single-record batches
 * would also pay the per-invocation work once per record, which flatters the kit.) The best the
 * parallel run can do is bounded by its longest partition: records / ceil(records / partitions).
 *
 * Prints milliseconds per batch (median of the rounds), the process's CPU time per batch, the
 * speed-up, and the Data API calls per record; exits with 1 when the speed-up is under the target.
 *
 *   npm run bench:kafka -- --latency 10 --records 100 --partitions 8 --concurrency 8 --rounds 7 --warmup 10 --target 6 --emulator process
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { processKafkaBatch, sql, type Database, type KafkaInboxOptions } from '../functions/inbox/index.js';
import type { KafkaEvent } from '../functions/inbox/kafka/index.js';
import { pgDatabase } from '../functions/inbox/pg/index.js';
import { startPostgres } from '../local/postgres/index.js';
import { createScratchDatabase } from '../local/scratch-database.js';
import { localDataApiClient, localDataApiDatabase } from '../local/data-api/index.js';
import { countingDatabase } from '../test/support/counting-database.js';
import { openDataApi } from '../test/support/data-api.js';
import { shipStatement, type Ship } from '../test/support/kafka-inbox.js';
import { kafkaEvent, kafkaRecord } from '../test/support/kafka-events.js';
import { lambdaContext } from '../test/support/sqs-events.js';
import { startDataApiProcess } from './data-api-process.js';
import { migrateReferenceDatabase } from '../demo/reference-database.js';

const { values: args } = parseArgs({
  options: {
    latency: { type: 'string', default: '10' },
    records: { type: 'string', default: '100' },
    partitions: { type: 'string', default: '8' },
    concurrency: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '7' },
    warmup: { type: 'string', default: '10' },
    target: { type: 'string', default: '6' },
    emulator: { type: 'string', default: 'process' },
  },
});
if (args.emulator !== 'process' && args.emulator !== 'inline') throw new RangeError(`--emulator is process or inline, not ${args.emulator}`);
const LATENCY_MS = Number(args.latency);
const RECORDS = Number(args.records);
const PARTITIONS = Number(args.partitions);
const CONCURRENCY = Number(args.concurrency);
const ROUNDS = Number(args.rounds);
const WARMUP = Number(args.warmup);
const TARGET = Number(args.target);

// One line instead of the AWS SDK's paragraph about Node.js 22.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const server = await startPostgres();
const scratch = await createScratchDatabase(server.url, 'bench_kafka');
const setupDb = pgDatabase({ connectionString: scratch.url, max: 2 });
await migrateReferenceDatabase(setupDb);
const orderIds = Array.from({ length: RECORDS }, () => randomUUID());
await setupDb.query(sql`INSERT INTO orders (order_id) SELECT unnest(${`{${orderIds.join(',')}}`}::uuid[])`);
await setupDb.close();

/** The Data API driver on the scratch database through the emulator, and how to stop both. */
async function openEmulator(): Promise<{ db: Database; close(): Promise<void> }> {
  if (args.emulator === 'inline') return openDataApi(scratch.url, { latencyMs: LATENCY_MS });
  const emulator = await startDataApiProcess(scratch.url, LATENCY_MS);
  const client = localDataApiClient(emulator.endpoint);
  const db = localDataApiDatabase(client, new URL(scratch.url).pathname.slice(1));
  return { db, close: async () => { await db.close(); client.destroy(); await emulator.close(); } };
}
const local = await openEmulator();

/** The next batch of the topic: new offsets in every partition, so every record is a fresh claim. */
function nextBatch(): KafkaEvent {
  return kafkaEvent(orderIds.map((orderId, i) => kafkaRecord({ orderId }, { topic: 'orders', partition: i % PARTITIONS })));
}

function options(db: Database, concurrency: number): KafkaInboxOptions<Ship> {
  return { consumer: `bench-kafka-${concurrency}`, db, concurrency, statement: (order) => shipStatement(order.orderId) };
}

/** Wall and CPU milliseconds of one batch; refuses a batch with failures or with other than one call per record. */
async function once(concurrency: number): Promise<{ ms: number; cpuMs: number }> {
  const event = nextBatch();
  const counted = countingDatabase(local.db);
  const cpu = process.cpuUsage();
  const started = performance.now();
  const response = await processKafkaBatch(event, lambdaContext(), options(counted.db, concurrency));
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  if (response.batchItemFailures.length > 0) throw new Error(`concurrency ${concurrency}: ${response.batchItemFailures.length} records failed`);
  // Statement mode: one ExecuteStatement a record, no transaction.
  if (counted.calls() !== RECORDS || counted.transactions() !== 0) {
    throw new Error(`concurrency ${concurrency}: ${counted.calls()} statements and ${counted.transactions()} transactions for ${RECORDS} records`);
  }
  return { ms, cpuMs: (used.user + used.system) / 1000 };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

// Warm the connections, the emulator's type cache and the JIT (the SDK's per-call work halves once
// V8 has compiled it), as a Lambda environment is warm after its first invocations.
for (let round = 0; round < WARMUP; round += 1) await once(round % 2 === 0 ? CONCURRENCY : 1);

const parallel: { ms: number; cpuMs: number }[] = [];
const sequential: { ms: number; cpuMs: number }[] = [];
// Alternate the two, so drift on a shared machine weighs on both alike.
for (let round = 0; round < ROUNDS; round += 1) {
  parallel.push(await once(CONCURRENCY));
  sequential.push(await once(1));
}

const kitMs = median(parallel.map((run) => run.ms));
const sequentialMs = median(sequential.map((run) => run.ms));
const ratio = sequentialMs / kitMs;
const bound = RECORDS / Math.ceil(RECORDS / PARTITIONS);

console.log(`Kafka batch of ${RECORDS} records in ${PARTITIONS} partitions, statement mode, Data API with ${LATENCY_MS} ms per call (emulator ${args.emulator === 'process' ? 'in its own process' : 'in this process'}), median of ${ROUNDS} rounds`);
// When this process's CPU time nears the wall time, the batch is CPU-bound, not latency-bound.
console.log('run                          batch ms  process CPU ms  calls/record');
const row = (label: string, ms: number, runs: { cpuMs: number }[]) =>
  console.log(`${label.padEnd(27)} ${ms.toFixed(1).padStart(9)}  ${median(runs.map((run) => run.cpuMs)).toFixed(1).padStart(14)}  ${'1'.padStart(12)}`);
row(`partitions in parallel (${CONCURRENCY})`, kitMs, parallel);
row('one after another (1)', sequentialMs, sequential);
console.log(`speed-up ${ratio.toFixed(2)}x (bound by the longest partition: ${bound.toFixed(2)}x; target ${TARGET}x): ${ratio >= TARGET ? 'met' : 'NOT met'}`);
if (ratio < TARGET) process.exitCode = 1;

await local.close();
await scratch.drop();
await server.close();
