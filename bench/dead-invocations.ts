/**
 * Issue 12's shape through the main job: transaction mode, a standard queue, four pollers, batches
 * of 10, each message delivered 1 to 3 times with the copies in flight at once, a 1 s lock timeout,
 * a 1.5 s function timeout, a 2 s visibility timeout, and invocations dying right after a commit
 * (their other open transactions abandoned on the Data API, rolled back on pg). The same run on
 * pgDatabase, on dataApiDatabase with the issue's 3 s idle timeout, and with the service's own 3
 * minutes, each on a database of its own; prints how long each took to drain, its ratio to pg and
 * the accounts (every figure read from the database), or what was left when it did not drain.
 *
 *   npm run bench:dead-invocations -- --orders 2000 --crash-rate 0.4 --seed 1 --drain-timeout-s 300
 */
import { parseArgs } from 'node:util';
import { formatDataApiStats, MainJobNotDrainedError, runMainJob, type MainJobOptions, type MainJobReport } from '../demo/main-job.js';
import { startPostgres } from '../local/postgres/index.js';
import { createScratchDatabase } from '../local/scratch-database.js';
import { DEAD_INVOCATIONS_SHAPE } from '../test/support/main-job.js';

// One line instead of the AWS SDK's paragraph about Node.js 22.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const { values: args } = parseArgs({
  options: {
    orders: { type: 'string', default: '2000' },
    'crash-rate': { type: 'string', default: '0.4' },
    seed: { type: 'string', default: '1' },
    'drain-timeout-s': { type: 'string', default: '300' },
    target: { type: 'string', default: '2' },
  },
});

const SHAPE: MainJobOptions = {
  ...DEAD_INVOCATIONS_SHAPE,
  orders: Number(args.orders),
  crashRate: Number(args['crash-rate']),
  // Enough receives that crashes alone never park a message; a message in the DLQ is a finding.
  maxReceiveCount: 20,
  poison: 0,
  stuck: 0,
  producerRetryRate: 0,
  seed: Number(args.seed),
  drainTimeoutMs: Number(args['drain-timeout-s']) * 1000,
};
const RUNS: { label: string; options: MainJobOptions }[] = [
  { label: 'pg', options: { driver: 'pg' } },
  { label: 'data-api, idle 3 s', options: { driver: 'data-api', transactionIdleTimeoutMs: 3000 } },
  { label: 'data-api, idle 3 min', options: { driver: 'data-api', transactionIdleTimeoutMs: 180_000 } },
];

const server = await startPostgres();
const results: { label: string; report: MainJobReport }[] = [];
const notDrained: { label: string; error: MainJobNotDrainedError }[] = [];
try {
  for (const run of RUNS) {
    const scratch = await createScratchDatabase(server.url, 'bench_dead');
    try {
      // runMainJob applies the migrations itself.
      results.push({ label: run.label, report: await runMainJob({ ...SHAPE, ...run.options, databaseUrl: scratch.url }) });
    } catch (error) {
      if (!(error instanceof MainJobNotDrainedError)) throw error;
      notDrained.push({ label: run.label, error });
    } finally {
      await scratch.drop();
    }
  }
} finally {
  await server.close();
}

const pgSeconds = results.find((result) => result.label === 'pg')?.report.seconds ?? Number.NaN;
console.log(`${SHAPE.orders} orders, crash rate ${SHAPE.crashRate} after commit, up to ${SHAPE.copies} copies at once, seed ${SHAPE.seed}`);
console.log('driver                  seconds  vs pg  deliveries  crashes  applied  double  lost  in DLQ  lock waits failed');
for (const { label, report } of results) {
  const lockWaits = Object.entries(report.failureReasons).filter(([reason]) => reason.endsWith(' 55P03')).reduce((sum, [, n]) => sum + n, 0);
  console.log([
    label.padEnd(22), report.seconds.toFixed(1).padStart(8), `${(report.seconds / pgSeconds).toFixed(2)}x`.padStart(6),
    String(report.deliveries).padStart(11), String(report.crashes.afterCommit).padStart(8), String(report.applied).padStart(8),
    String(report.doubleEffects).padStart(7), String(report.lost).padStart(5), String(report.inDlq).padStart(7), String(lockWaits).padStart(18),
  ].join(' '));
}
for (const { label, report } of results.filter((result) => result.report.driver === 'data-api')) {
  console.log(`${label}: Data API emulator: ${formatDataApiStats(report.dataApi)}`);
}
for (const { label, error } of notDrained) console.log(`${label}: NOT DRAINED in ${SHAPE.drainTimeoutMs! / 1000} s: ${error.message}`);
// Issue 12's bar: on the Data API the same shape drains within `--target` times the pg driver's time.
const target = Number(args.target);
const slowest = Math.max(...results.filter((result) => result.report.driver === 'data-api').map((result) => result.report.seconds / pgSeconds));
console.log(`slowest Data API run ${slowest.toFixed(2)}x pg (target ${target}x): ${slowest <= target ? 'met' : 'NOT met'}`);
if (notDrained.length > 0 || !(slowest <= target)) process.exitCode = 1;
