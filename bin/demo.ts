import { parseArgs } from 'node:util';
import { runBatchDemo, type BatchDemoReport } from '../local/demo/batch-demo.js';

const { values } = parseArgs({
  options: {
    orders: { type: 'string', default: '2000' },
    'fault-rate': { type: 'string', default: '0.05' },
    'retry-rate': { type: 'string', default: '0.1' },
    poison: { type: 'string', default: '20' },
    seed: { type: 'string', default: '1' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log('npm start -- [--orders 2000] [--fault-rate 0.05] [--retry-rate 0.1] [--poison 20] [--seed 1]');
  process.exit(0);
}

const interactive = process.stdout.isTTY === true;
const progress = (done: number, total: number) => {
  if (!interactive) return;
  const width = 30;
  const filled = Math.round((done / total) * width);
  process.stdout.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`);
};

console.log('sqs-inbox demo: embedded PostgreSQL, migrations, the order worker, crashes before and after commit');
const report: BatchDemoReport = await runBatchDemo({
  orders: Number(values.orders),
  faultRate: Number(values['fault-rate']),
  producerRetryRate: Number(values['retry-rate']),
  poison: Number(values.poison),
  seed: Number(values.seed),
  invocations: 4,
  maxReceiveCount: 5,
  onProgress: progress,
});
if (interactive) process.stdout.write('\n');

const lines: [string, number | string][] = [
  ['messages sent', report.sent],
  ['unique orders', report.uniqueOrders],
  ['orders applied', report.applied],
  ['duplicates suppressed', report.duplicatesSuppressed],
  ['rejected (poison)', report.rejected],
  ['redeliveries', report.redeliveries],
  ['crashes before commit', report.faults.beforeCommit],
  ['crashes after commit', report.faults.afterCommit],
  ['in the DLQ', report.inDlq],
  ['double effects (must be 0)', report.doubleEffects],
  ['lost (must be 0)', report.lost],
  ['seconds', report.seconds.toFixed(1)],
];
for (const [label, value] of lines) console.log(`${label.padEnd(28)} ${value}`);
if (report.doubleEffects > 0 || report.lost > 0) {
  console.error('FAILED: the inbox let an effect through twice or lost a message');
  process.exit(1);
}
