/**
 * How the cost grows with the work (issue 19): N messages through `processBatch` on the Data API
 * driver (`localDataApiDatabase`, the real RDS Data client) against the Data API emulator in a
 * process of its own, on a real PostgreSQL (the embedded one, or DATABASE_URL), at each size on a
 * database of its own. Messages come in batches of `--batch` (10, as SQS hands them), to
 * `--invocations` Lambda environments at once (5, as SQS's poller starts; each with its own client,
 * and the kit's default concurrency of 10 inside a batch), each the next batch when it has answered;
 * a record reported failed is delivered again.
 *
 * Per size: wall time; the CPU of this process (the workers) per message, and the emulator's for
 * comparison; Data API calls per message (the emulator's count); consumed_message's table and index
 * size per message (pg_relation_size, pg_indexes_size); the time `cleanupInbox` takes to purge a day
 * of rows (every row moved a day back, vacuumed, then purged with a one-day retention). A size under
 * `--min-messages` (10000) is run again on a fresh database until that many messages were measured,
 * and each of its figures is the median of its rounds, so a small size's figures, the base of every
 * ratio, are not one short run on a loaded machine. Then each per-message cost at every size over
 * the smallest size's.
 *
 * Before the sizes, a run of `--profile-messages` under V8's sampling profiler splits the workers'
 * CPU by the file each sample ran in (the kit, the AWS SDK, Node's internals, V8): a profile-based
 * split, so its sum runs above the unprofiled CPU figure by the profiler's own overhead.
 * `--profile-out DIR` writes each profile as `<mode>.cpuprofile`, for Chrome DevTools. Beside it, a
 * micro-bench times the kit's own per-call path alone (`--kit-messages` through processBatch and
 * dataApiDatabase over a client that answers in place: no SDK, no HTTP), which their noise cannot reach.
 *
 * Exits 1 only when a per-message cost grew past the bound (`--bound 0.2`: 20%) from the smallest
 * size to a larger one, or when a run did not end with every message applied once and purged (its
 * figures would then measure something else); every figure is printed either way.
 *
 *   npm run bench:scale -- --sizes 1000,10000,100000 --modes statement,transaction --invocations 5 --batch 10 --latency 0
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { localDataApiClient } from '../local/data-api/index.js';
import { startPostgres } from '../local/postgres/index.js';
import { profiled } from './cpu-split.js';
import { startDataApiProcess } from './data-api-process.js';
import { kitPathCpu } from './kit-path.js';
import { figureLines, medianOf, noteLines, ratioLines, ratiosOf, splitLines, type SizeFigures } from './scale-report.js';
import { scaleRun, type Mode, type ScaleFigures, type ScaleSetup } from './scale-run.js';

// One line instead of the AWS SDK's paragraph about Node.js 22.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000,10000,100000' },
    modes: { type: 'string', default: 'statement,transaction' },
    invocations: { type: 'string', default: '5' },
    batch: { type: 'string', default: '10' },
    latency: { type: 'string', default: '0' },
    warmup: { type: 'string', default: '2000' },
    'profile-messages': { type: 'string', default: '2000' },
    bound: { type: 'string', default: '0.2' },
    'profile-out': { type: 'string' },
    'kit-messages': { type: 'string', default: '20000' },
    'min-messages': { type: 'string', default: '10000' },
  },
});

function wholeNumbers(flag: string, text: string, min = 0): number[] {
  const numbers = text.split(',').map(Number);
  if (numbers.some((n) => !Number.isInteger(n) || n < min)) throw new RangeError(`--${flag} takes whole numbers of ${min} or more, comma-separated, but "${text}" was given.`);
  return numbers;
}
const SIZES = wholeNumbers('sizes', args.sizes, 1).sort((a, b) => a - b);
const MODES = args.modes.split(',') as Mode[];
if (MODES.some((mode) => mode !== 'statement' && mode !== 'transaction')) throw new RangeError(`--modes takes statement and transaction, not "${args.modes}".`);
const wholeNumber = (flag: string, text: string): number => wholeNumbers(flag, text)[0]!;
const INVOCATIONS = wholeNumbers('invocations', args.invocations, 1)[0]!;
const BATCH = wholeNumbers('batch', args.batch, 1)[0]!;
const LATENCY_MS = wholeNumber('latency', args.latency);
const WARMUP = wholeNumber('warmup', args.warmup);
const PROFILE_MESSAGES = wholeNumber('profile-messages', args['profile-messages']);
const KIT_MESSAGES = wholeNumber('kit-messages', args['kit-messages']);
const MIN_MESSAGES = wholeNumber('min-messages', args['min-messages']);
const BOUND = Number(args.bound);

const cpuInfo = await readFile('/proc/cpuinfo', 'utf8').catch(() => '');
const cpuModel = /model name\s*:\s*(.*)/.exec(cpuInfo)?.[1] ?? os.cpus()[0]?.model ?? 'unknown';
console.log(`bench:scale: ${MODES.join(' and ')} mode, ${SIZES.join(' / ')} messages, batches of ${BATCH} to ${INVOCATIONS} environments at once, ${LATENCY_MS} ms added per Data API call`);
console.log(`machine: ${os.cpus().length} CPUs (nproc ${os.availableParallelism()}), ${cpuModel}, Node ${process.version}, load ${os.loadavg().map((n) => n.toFixed(2)).join(' ')}`);
console.log(`exits 1 only when a per-message cost grows past ${(BOUND * 100).toFixed(0)}% from ${SIZES[0]} messages to a larger size`);

const server = await startPostgres();
const emulator = await startDataApiProcess(server.url, LATENCY_MS);
const clients = Array.from({ length: INVOCATIONS }, () => localDataApiClient(emulator.endpoint));
const setup: ScaleSetup = { serverUrl: server.url, emulator, clients, shape: { batchSize: BATCH, invocations: INVOCATIONS, maxReceiveCount: 5 } };
const runs: SizeFigures[] = [];
const allRounds: ScaleFigures[] = [];
try {
  // The JIT of both processes warmed, and the emulator's connections open, before anything is measured.
  for (const mode of MODES) if (WARMUP > 0) await scaleRun(setup, mode, WARMUP);
  console.log(`warmed with ${WARMUP} messages per mode (not measured)`);

  if (PROFILE_MESSAGES > 0) {
    console.log(`\nworker CPU by part, from a profile of ${PROFILE_MESSAGES} messages per mode (self time, builtins charged to their caller)`);
    for (const mode of MODES) {
      let split: Awaited<ReturnType<typeof profiled>>['split'] | undefined;
      const run = await scaleRun(setup, mode, PROFILE_MESSAGES, async (deliveries) => {
        const taken = await profiled(deliveries);
        split = taken.split;
        if (args['profile-out'] !== undefined) {
          await mkdir(args['profile-out'], { recursive: true });
          await writeFile(path.join(args['profile-out'], `${mode}.cpuprofile`), JSON.stringify(taken.profile));
        }
      });
      for (const line of splitLines(mode, run.messages, run.dataApiCalls / run.messages, split!)) console.log(line);
      console.log(`${mode.padEnd(11)} total  ${(run.workerCpuMs / run.messages).toFixed(3).padStart(7)} ms/msg measured with the profiler on (process.cpuUsage)`);
    }
  }

  if (KIT_MESSAGES > 0) {
    console.log(`\nthe kit's own path alone: ${KIT_MESSAGES} messages per mode through processBatch and dataApiDatabase over a client that answers in place (no SDK, no HTTP), best of 3`);
    for (const mode of MODES) {
      await kitPathCpu(mode, KIT_MESSAGES, BATCH);
      const rounds = [await kitPathCpu(mode, KIT_MESSAGES, BATCH), await kitPathCpu(mode, KIT_MESSAGES, BATCH), await kitPathCpu(mode, KIT_MESSAGES, BATCH)];
      console.log(`${mode.padEnd(11)} kit    ${(Math.min(...rounds) / 1000).toFixed(3).padStart(7)} ms/msg  (rounds ${rounds.map((us) => `${us.toFixed(1)} us`).join(', ')})`);
    }
  }

  for (const mode of MODES) {
    for (const size of SIZES) {
      const rounds: ScaleFigures[] = [];
      for (let round = 0; round < Math.max(1, Math.ceil(MIN_MESSAGES / size)); round += 1) rounds.push(await scaleRun(setup, mode, size));
      allRounds.push(...rounds);
      runs.push(medianOf(rounds));
    }
  }
} finally {
  for (const client of clients) client.destroy();
  await emulator.close();
  await server.close();
}

console.log('');
for (const line of figureLines(runs)) console.log(line);
const unfinished = allRounds.filter((run) => run.inboxRows !== run.messages || run.shipped !== run.messages || run.cleanup.deleted !== run.inboxRows || run.dataApiErrors > 0 || run.parked > 0);
for (const run of unfinished) {
  console.log(`${run.mode} ${run.messages}: ${run.inboxRows} inbox rows, ${run.shipped} orders shipped once, ${run.cleanup.deleted} rows purged, ${run.dataApiErrors} Data API errors, ${run.parked} parked: NOT every message applied once`);
}

const ratios = ratiosOf(runs);
console.log(`\nper-message cost over ${SIZES[0]} messages (flat: within ${(BOUND * 100).toFixed(0)}%)`);
for (const line of ratioLines(ratios, BOUND)) console.log(line);
const notes = noteLines(runs, ratios, BOUND);
if (notes.length > 0) console.log(`\nwhere a cost left the ${(BOUND * 100).toFixed(0)}% bound, and why`);
for (const line of notes) console.log(line);
const grown = ratios.filter((ratio) => ratio.ratio > 1 + BOUND);
console.log(grown.length === 0
  ? `every per-message cost stayed within ${(BOUND * 100).toFixed(0)}% of its ${SIZES[0]}-message figure`
  : `${grown.length} per-message cost(s) grew past ${(BOUND * 100).toFixed(0)}%: ${grown.map((ratio) => `${ratio.mode} ${ratio.cost} at ${ratio.messages}`).join(', ')}`);
console.log(`load average at the end: ${os.loadavg().map((n) => n.toFixed(2)).join(' ')}`);
if (grown.length > 0 || unfinished.length > 0) process.exitCode = 1;
