/**
 * One Kafka batch through processKafkaBatch in statement mode on the Data API driver, with a
 * simulated per-call latency, three ways measured in the same run on the same emulator: batched
 * (`batchStatements`, the default: BeginTransaction, one BatchExecuteStatement, CommitTransaction),
 * unbatched with its partitions in parallel (concurrency >= partitions: one call a record), and
 * unbatched one record after another (`concurrency: 1`).
 *
 * The emulator runs in a process of its own by default (`--emulator process`): on Lambda the
 * service's HTTP, JSON and SQL work is not on the function's event loop, and here it would be,
 * charging about half of each call's CPU to the kit. `--emulator inline` runs it in this process.
 *
 * The unbatched parallel run is bounded by its longest partition: records / ceil(records / partitions)
 * over one record after another. Calls are counted on the client (every command sent).
 *
 * Each round runs each way as a block of `--block` batches after a full garbage collection, so each
 * pays for its own garbage. Prints milliseconds per batch (median of the rounds), the process's CPU
 * per batch and per record (this process only: the emulator's is its own process's),
 * the Data API calls per batch, and the ratios; exits with 1 when a target is missed: the batch in
 * at most `--max-calls` calls and at most `1 / --batched-target` of the unbatched parallel wall time,
 * and the parallel run at least `--target` times faster than one record after another.
 *
 *   npm run bench:kafka -- --latency 10 --records 100 --partitions 8 --concurrency 8 --rounds 7 --block 3 --warmup 10 --target 6 --batched-target 3 --max-calls 3 --emulator process
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { processKafkaBatch, sql, type KafkaInboxOptions } from '../functions/inbox/index.js';
import type { KafkaEvent } from '../functions/inbox/kafka/index.js';
import { pgDatabase } from '../functions/inbox/pg/index.js';
import { startPostgres } from '../local/postgres/index.js';
import { createScratchDatabase } from '../local/scratch-database.js';
import { shipStatement, type Ship } from '../test/support/kafka-inbox.js';
import { kafkaEvent, kafkaRecord } from '../test/support/kafka-events.js';
import { lambdaContext } from '../test/support/sqs-events.js';
import { migrateReferenceDatabase } from '../demo/reference-database.js';
import { openBenchEmulator } from './bench-emulator.js';
import { collectGarbage } from './collect-garbage.js';

const { values: args } = parseArgs({
  options: {
    latency: { type: 'string', default: '10' },
    records: { type: 'string', default: '100' },
    partitions: { type: 'string', default: '8' },
    concurrency: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '7' },
    warmup: { type: 'string', default: '10' },
    block: { type: 'string', default: '3' },
    target: { type: 'string', default: '6' },
    'batched-target': { type: 'string', default: '3' },
    'max-calls': { type: 'string', default: '3' },
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
const BLOCK = Number(args.block);
const TARGET = Number(args.target);
const BATCHED_TARGET = Number(args['batched-target']);
const MAX_CALLS = Number(args['max-calls']);

// One line instead of the AWS SDK's paragraph about Node.js 22.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const server = await startPostgres();
const scratch = await createScratchDatabase(server.url, 'bench_kafka');
const setupDb = pgDatabase({ connectionString: scratch.url, max: 2 });
await migrateReferenceDatabase(setupDb);
const orderIds = Array.from({ length: RECORDS }, () => randomUUID());
await setupDb.query(sql`INSERT INTO orders (order_id) SELECT unnest(${`{${orderIds.join(',')}}`}::uuid[])`);
await setupDb.close();

const local = await openBenchEmulator(scratch.url, LATENCY_MS, args.emulator);

/** The next batch of the topic: new offsets in every partition, so every record is a fresh claim. */
function nextBatch(): KafkaEvent {
  return kafkaEvent(orderIds.map((orderId, i) => kafkaRecord({ orderId }, { topic: 'orders', partition: i % PARTITIONS })));
}

/** One of the three ways a batch runs. */
interface Way { readonly label: string; readonly concurrency: number; readonly batchStatements: boolean }
const BATCHED: Way = { label: `batched (${CONCURRENCY})`, concurrency: CONCURRENCY, batchStatements: true };
const PARALLEL: Way = { label: `unbatched, parallel (${CONCURRENCY})`, concurrency: CONCURRENCY, batchStatements: false };
const SEQUENTIAL: Way = { label: 'unbatched, one by one (1)', concurrency: 1, batchStatements: false };

function options(way: Way): KafkaInboxOptions<Ship> {
  return {
    consumer: `bench-kafka-${way.concurrency}-${way.batchStatements}`, db: local.db, concurrency: way.concurrency,
    batchStatements: way.batchStatements, statement: (order) => shipStatement(order.orderId),
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Wall milliseconds and Data API calls of one batch; refuses a batch with failures. */
async function once(way: Way): Promise<{ ms: number; calls: number }> {
  const event = nextBatch();
  const calls = local.calls();
  const started = performance.now();
  const response = await processKafkaBatch(event, lambdaContext(), options(way));
  const ms = performance.now() - started;
  if (response.batchItemFailures.length > 0) throw new Error(`${way.label}: ${response.batchItemFailures.length} records failed`);
  return { ms, calls: local.calls() - calls };
}

/**
 * `BLOCK` batches of one way back to back after a full collection: their median wall milliseconds,
 * the process CPU per batch over the block and the most calls one took, so a way pays for the
 * collection of its own garbage and not for another's.
 */
async function block(way: Way): Promise<{ ms: number; cpuMs: number; calls: number }> {
  collectGarbage();
  const cpu = process.cpuUsage();
  const batches: { ms: number; calls: number }[] = [];
  for (let i = 0; i < BLOCK; i += 1) batches.push(await once(way));
  const used = process.cpuUsage(cpu);
  return { ms: median(batches.map((b) => b.ms)), cpuMs: (used.user + used.system) / 1000 / BLOCK, calls: Math.max(...batches.map((b) => b.calls)) };
}

// Warm the connections, the emulator's type cache and the JIT (the SDK's per-call work halves once
// V8 has compiled it), as a Lambda environment is warm after its first invocations.
const WAYS = [BATCHED, PARALLEL, SEQUENTIAL];
for (let round = 0; round < WARMUP; round += 1) await once(WAYS[round % WAYS.length]!);

const runs = new Map<Way, { ms: number; cpuMs: number; calls: number }[]>(WAYS.map((way) => [way, []]));
// Alternate the three, so drift on a shared machine weighs on all alike.
for (let round = 0; round < ROUNDS; round += 1) {
  for (const way of WAYS) runs.get(way)!.push(await block(way));
}
const summary = (way: Way) => {
  const list = runs.get(way)!;
  return { ms: median(list.map((run) => run.ms)), cpuMs: median(list.map((run) => run.cpuMs)), calls: Math.max(...list.map((run) => run.calls)) };
};
const batched = summary(BATCHED);
const parallel = summary(PARALLEL);
const sequential = summary(SEQUENTIAL);
const ratio = sequential.ms / parallel.ms;
const wallRatio = parallel.ms / batched.ms;
const cpuRatio = parallel.cpuMs / batched.cpuMs;
const bound = RECORDS / Math.ceil(RECORDS / PARTITIONS);

console.log(`Kafka batch of ${RECORDS} records in ${PARTITIONS} partitions, statement mode, Data API with ${LATENCY_MS} ms per call (emulator ${args.emulator === 'process' ? 'in its own process' : 'in this process'}), median of ${ROUNDS} rounds`);
// When this process's CPU time nears the wall time, the batch is CPU-bound, not latency-bound.
console.log('run                            batch ms  process CPU ms  CPU µs/record  calls/batch');
for (const way of WAYS) {
  const { ms, cpuMs, calls } = summary(way);
  console.log(`${way.label.padEnd(29)} ${ms.toFixed(1).padStart(9)}  ${cpuMs.toFixed(1).padStart(14)}  ${(cpuMs * 1000 / RECORDS).toFixed(0).padStart(13)}  ${String(calls).padStart(11)}`);
}
const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
const callsMet = batched.calls <= MAX_CALLS;
const wallMet = wallRatio >= BATCHED_TARGET;
console.log(`batched: ${batched.calls} calls a batch (target at most ${MAX_CALLS}): ${verdict(callsMet)}`);
console.log(`batched: wall time ${wallRatio.toFixed(2)}x under unbatched (target ${BATCHED_TARGET}x), process CPU per record ${cpuRatio.toFixed(2)}x under: ${verdict(wallMet)}`);
console.log(`unbatched: partitions in parallel ${ratio.toFixed(2)}x over one by one (bound by the longest partition: ${bound.toFixed(2)}x; target ${TARGET}x): ${verdict(ratio >= TARGET)}`);
if (!callsMet || !wallMet || ratio < TARGET) process.exitCode = 1;

await local.close();
await scratch.drop();
await server.close();
