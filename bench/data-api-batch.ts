/**
 * One SQS batch through the Data API driver with a simulated per-call latency: statement mode
 * batched (`batchStatements`, the default) and unbatched, and transaction mode, on a standard queue
 * and on FIFO with several groups, beside the sequential one-message-after-another baseline (what
 * Powertools' SQS FIFO processor does: one record at a time), measured in the same run on the same
 * emulator. The emulator runs in a process of its own by default (`--emulator process`), so the
 * process CPU is the kit's and the SDK's, as on Lambda; `--emulator inline` runs it here.
 *
 * Each round runs every scenario as a block of `--block` batches after a full garbage collection,
 * so each pays for its own garbage. Prints milliseconds per batch (median of the rounds), the
 * speed-up over the baseline, the Data API calls per batch (counted on the client) and the process
 * CPU per message (this process only: the emulator's is its own process's). Then, with valgrind on
 * PATH (`--instructions auto`, the default; `on` requires it, `off` skips it), statement mode's
 * instructions per message batched and not, each scenario run in a worker under callgrind
 * (`--counted-batches` batches after `--counted-warmup`; about ten minutes). Exits with 1 when
 * batched statement mode takes more than `--max-calls` calls a batch or more than
 * `1 / --cpu-target` of unbatched statement mode's CPU per message: counted in instructions when
 * they were counted, else in CPU time.
 *
 *   npm run bench:data-api -- --latency 10 --batch 10 --groups 3 --rounds 7 --block 3 --warmup 10 --max-calls 3 --cpu-target 2 --emulator process --instructions auto --counted-warmup 300 --counted-batches 300
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { processBatch, sql } from '../functions/inbox/index.js';
import { pgDatabase } from '../functions/inbox/pg/index.js';
import { startPostgres } from '../local/postgres/index.js';
import { createScratchDatabase } from '../local/scratch-database.js';
import { lambdaContext, sqsEvent } from '../test/support/sqs-events.js';
import { migrateReferenceDatabase } from '../demo/reference-database.js';
import { openBenchEmulator } from './bench-emulator.js';
import { collectGarbage } from './collect-garbage.js';
import { startDataApiProcess } from './data-api-process.js';
import { countInstructions, hasValgrind } from './instruction-count.js';
import { MODES, QUEUES, scenarioBatch, scenarioOptions, type Mode, type Queue, type Ship } from './statement-scenario.js';

// One line instead of the AWS SDK's paragraph about Node.js 22.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const { values: args } = parseArgs({
  options: {
    latency: { type: 'string', default: '10' },
    batch: { type: 'string', default: '10' },
    groups: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '7' },
    warmup: { type: 'string', default: '10' },
    block: { type: 'string', default: '3' },
    'max-calls': { type: 'string', default: '3' },
    'cpu-target': { type: 'string', default: '2' },
    emulator: { type: 'string', default: 'process' },
    instructions: { type: 'string', default: 'auto' },
    'counted-warmup': { type: 'string', default: '300' },
    'counted-batches': { type: 'string', default: '300' },
  },
});
if (args.emulator !== 'process' && args.emulator !== 'inline') throw new RangeError(`--emulator is process or inline, not ${args.emulator}`);
if (!['auto', 'on', 'off'].includes(args.instructions)) throw new RangeError(`--instructions is auto, on or off, not ${args.instructions}`);
const LATENCY_MS = Number(args.latency);
const BATCH = Number(args.batch);
const GROUPS = Number(args.groups);
const ROUNDS = Number(args.rounds);
const WARMUP = Number(args.warmup);
const BLOCK = Number(args.block);
const MAX_CALLS = Number(args['max-calls']);
const CPU_TARGET = Number(args['cpu-target']);
const COUNTED_WARMUP = Number(args['counted-warmup']);
const COUNTED_BATCHES = Number(args['counted-batches']);
const COUNT_INSTRUCTIONS = args.instructions !== 'off' && hasValgrind();
if (args.instructions === 'on' && !COUNT_INSTRUCTIONS) throw new Error('--instructions on counts with valgrind, which is not on PATH: install it (Debian: apt-get install valgrind) or pass --instructions auto or off');

type Measured = { ms: number; cpuUsPerMessage: number; calls: number };

const server = await startPostgres();
const scratch = await createScratchDatabase(server.url, 'bench');
const setupDb = pgDatabase({ connectionString: scratch.url, max: 2 });
await migrateReferenceDatabase(setupDb);
const orderIds = Array.from({ length: BATCH }, () => randomUUID());
await setupDb.query(sql`INSERT INTO orders (order_id) SELECT unnest(${`{${orderIds.join(',')}}`}::uuid[])`);
await setupDb.close();

const local = await openBenchEmulator(scratch.url, LATENCY_MS, args.emulator);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Milliseconds and Data API calls of one batch. */
async function once(mode: Mode, queue: Queue, concurrency: number): Promise<{ ms: number; calls: number }> {
  const records = scenarioBatch(orderIds, queue, GROUPS);
  const calls = local.calls();
  const started = performance.now();
  const response = await processBatch(sqsEvent(...records), lambdaContext(), scenarioOptions(mode, local.db, concurrency));
  const ms = performance.now() - started;
  if (response.batchItemFailures.length > 0) throw new Error(`${mode}/${queue}: ${response.batchItemFailures.length} messages failed`);
  return { ms, calls: local.calls() - calls };
}

/**
 * `BLOCK` batches of one scenario back to back after a full collection: their median milliseconds,
 * the most calls one took, and the process CPU per message over the block, so a scenario pays for
 * the collection of its own garbage and not for another's.
 */
async function block(mode: Mode, queue: Queue, concurrency: number): Promise<Measured> {
  collectGarbage();
  const cpu = process.cpuUsage();
  const batches: { ms: number; calls: number }[] = [];
  for (let i = 0; i < BLOCK; i += 1) batches.push(await once(mode, queue, concurrency));
  const used = process.cpuUsage(cpu);
  return { ms: median(batches.map((b) => b.ms)), cpuUsPerMessage: (used.user + used.system) / (BLOCK * BATCH), calls: Math.max(...batches.map((b) => b.calls)) };
}

// Every scenario, the kit's concurrency and one at a time.
const SCENARIOS = MODES.flatMap((mode) => QUEUES.flatMap((queue) => [BATCH, 1].map((concurrency) => ({ mode, queue, concurrency }))));
const nameOf = (s: { mode: Mode; queue: Queue; concurrency: number }) => `${s.mode}/${s.queue}/${s.concurrency}`;

// Warm the connections, the emulator's type cache and the JIT, as a Lambda environment is warm after its first invocations.
for (let round = 0; round < WARMUP; round += 1) for (const mode of MODES) await once(mode, 'standard', BATCH);
// Round by round through every scenario, so drift on a shared machine weighs on all alike.
const runs = new Map<string, Measured[]>(SCENARIOS.map((s) => [nameOf(s), []]));
for (let round = 0; round < ROUNDS; round += 1) {
  for (const scenario of SCENARIOS) runs.get(nameOf(scenario))!.push(await block(scenario.mode, scenario.queue, scenario.concurrency));
}
const results = new Map<string, Measured>([...runs].map(([name, list]) => [name, {
  ms: median(list.map((r) => r.ms)), cpuUsPerMessage: median(list.map((r) => r.cpuUsPerMessage)), calls: Math.max(...list.map((r) => r.calls)),
}]));
const result = (mode: Mode, queue: Queue, concurrency: number) => results.get(nameOf({ mode, queue, concurrency }))!;

console.log(`Data API batch of ${BATCH}, ${LATENCY_MS} ms per call, FIFO in ${GROUPS} groups, median of ${ROUNDS} rounds (emulator ${args.emulator === 'process' ? 'in its own process' : 'in this process'})`);
console.log('mode                queue     batch ms  sequential ms  speed-up  calls/batch  CPU µs/message');
for (const mode of MODES) {
  for (const queue of QUEUES) {
    const kit = result(mode, queue, BATCH);
    const sequential = result(mode, queue, 1);
    console.log([
      mode.padEnd(19), queue.padEnd(9), kit.ms.toFixed(1).padStart(8), sequential.ms.toFixed(1).padStart(14),
      `${(sequential.ms / kit.ms).toFixed(2)}x`.padStart(9), String(kit.calls).padStart(12), kit.cpuUsPerMessage.toFixed(0).padStart(15),
    ].join(' '));
  }
}

// The pg driver's batch: one transaction, a statement at a time (node-postgres does not pipeline),
// so one commit for the batch instead of one a message, against the same round trips.
const pgDb = pgDatabase({ connectionString: scratch.url, max: BATCH, batch: true });
const onPg = async (batchStatements: boolean, queue: Queue): Promise<number> => {
  const records = scenarioBatch(orderIds, queue, GROUPS);
  const started = performance.now();
  const response = await processBatch<Ship>(sqsEvent(...records), lambdaContext(), {
    ...scenarioOptions(batchStatements ? 'statement, batched' : 'statement', pgDb, BATCH), consumer: `bench-pg-${batchStatements}`,
  });
  if (response.batchItemFailures.length > 0) throw new Error(`pg: ${response.batchItemFailures.length} messages failed`);
  return performance.now() - started;
};
for (let round = 0; round < WARMUP; round += 1) for (const batched of [true, false]) await onPg(batched, 'standard');
console.log('pg driver (no added latency)  batched ms  unbatched ms');
for (const queue of QUEUES) {
  const times = { batched: [] as number[], unbatched: [] as number[] };
  for (let round = 0; round < ROUNDS; round += 1) {
    times.batched.push(await onPg(true, queue));
    times.unbatched.push(await onPg(false, queue));
  }
  console.log(`${queue.padEnd(28)} ${median(times.batched).toFixed(1).padStart(10)}  ${median(times.unbatched).toFixed(1).padStart(12)}`);
}
await pgDb.close();

const WORKER = fileURLToPath(new URL('./statement-batch-worker.ts', import.meta.url));

/**
 * Instructions per message of one scenario at the kit's concurrency, counted by callgrind: a worker
 * runs `COUNTED_WARMUP` batches and then `COUNTED_BATCHES` more, another the warmup alone, and the
 * difference is what the counted batches cost. V8 keeps compiling the batch path for a hundred
 * batches or two, and its full collections come every few dozen, so both numbers are in the hundreds.
 */
async function instructionsPerMessage(endpoint: string, mode: Mode, queue: Queue): Promise<number> {
  const common = [endpoint, scratch.name, mode, queue, orderIds.join(','), String(GROUPS), String(COUNTED_WARMUP)];
  const [warm, counted] = await Promise.all([0, COUNTED_BATCHES].map((batches) => countInstructions(WORKER, [...common, String(batches)])));
  return (counted! - warm!) / (COUNTED_BATCHES * BATCH);
}

/** Statement mode's instructions per message, batched and not, on each queue. */
async function countStatementInstructions(): Promise<Map<Queue, { batched: number; unbatched: number }>> {
  const emulator = await startDataApiProcess(scratch.url, LATENCY_MS);
  try {
    const counts = new Map<Queue, { batched: number; unbatched: number }>();
    for (const queue of QUEUES) {
      counts.set(queue, { batched: await instructionsPerMessage(emulator.endpoint, 'statement, batched', queue), unbatched: await instructionsPerMessage(emulator.endpoint, 'statement', queue) });
    }
    return counts;
  } finally {
    await emulator.close();
  }
}

// CPU seconds are what Lambda bills, but on a shared VM a call that wakes the process after a wait
// runs on cold caches and costs several times what the same call costs among others answered in
// the same wake-up: batched mode's three calls come one after another, unbatched mode's ten
// together. Instructions count the work alone, so the CPU target is judged on them when valgrind is here.
const instructions = COUNT_INSTRUCTIONS ? await countStatementInstructions() : undefined;
if (instructions !== undefined) {
  console.log(`statement mode, instructions per message (callgrind; ${COUNTED_BATCHES} batches counted after ${COUNTED_WARMUP})`);
  console.log('queue        batched  unbatched  unbatched/batched');
  for (const [queue, count] of instructions) {
    console.log(`${queue.padEnd(9)} ${(count.batched / 1000).toFixed(0).padStart(8)}k ${(count.unbatched / 1000).toFixed(0).padStart(9)}k ${`${(count.unbatched / count.batched).toFixed(2)}x`.padStart(18)}`);
  }
} else {
  console.log(`statement mode, instructions per message: not counted (${args.instructions === 'off' ? '--instructions off' : 'valgrind is not on PATH'}); the CPU target is judged on CPU time`);
}

let missed = false;
for (const queue of QUEUES) {
  const batched = result('statement, batched', queue, BATCH);
  const unbatched = result('statement', queue, BATCH);
  const timeRatio = unbatched.cpuUsPerMessage / batched.cpuUsPerMessage;
  const counted = instructions?.get(queue);
  const cpuRatio = counted === undefined ? timeRatio : counted.unbatched / counted.batched;
  const met = batched.calls <= MAX_CALLS && cpuRatio >= CPU_TARGET;
  missed ||= !met;
  console.log(`${queue}: batched ${batched.calls} calls a batch against ${unbatched.calls} (target at most ${MAX_CALLS}), `
    + `process CPU per message ${cpuRatio.toFixed(2)}x under unbatched in ${counted === undefined ? 'CPU time' : `instructions (${timeRatio.toFixed(2)}x in CPU time)`} (target ${CPU_TARGET}x), `
    + `wall time ${(unbatched.ms / batched.ms).toFixed(2)}x under: ${met ? 'met' : 'NOT met'}`);
}
if (missed) process.exitCode = 1;

await local.close();
await scratch.drop();
await server.close();
