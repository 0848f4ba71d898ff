import { parseArgs } from 'node:util';
import { InboxConfigError } from '../functions/inbox/index.js';
import { runMainJob, type MainJobProgress, type MainJobReport } from '../local/demo/main-job.js';
import { progressBar } from '../local/demo/progress-bar.js';

const usage = `npm start -- [--orders 3000] [--queue fifo|standard] [--mode statement|transaction]
                [--fault-rate 0.1] [--twice-rate 0.02] [--retry-rate 0.05] [--poison 20] [--stuck 3] [--seed 1] [--pollers 4]

  --orders      unique orders, one message each
  --queue       a FIFO queue and DLQ (as the deployed stack) or standard ones
  --mode        statement: the ship-order worker (one Data API call a message)
                transaction: the record-payment worker (two tables in the claim's transaction)
  --fault-rate  share of invocations that die, half before and half after a commit
  --twice-rate  share of messages SQS hands to two pollers at once
  --retry-rate  share of producer batches whose answer is lost, and of entries SQS fails
  --poison      messages the worker cannot parse (rejected)
  --stuck       orders locked by a stuck session (their messages end in the DLQ)
  --seed        seed of the workload and of every fault`;

const { values } = parseArgs({
  options: {
    orders: { type: 'string', default: '3000' },
    queue: { type: 'string', default: 'fifo' },
    mode: { type: 'string', default: 'statement' },
    'fault-rate': { type: 'string', default: '0.1' },
    'twice-rate': { type: 'string', default: '0.02' },
    'retry-rate': { type: 'string', default: '0.05' },
    poison: { type: 'string', default: '20' },
    stuck: { type: 'string', default: '3' },
    seed: { type: 'string', default: '1' },
    pollers: { type: 'string', default: '4' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(usage);
  process.exit(0);
}

const interactive = process.stdout.isTTY === true;
let printedQuarter = 0;
const onProgress = (progress: MainJobProgress) => {
  if (interactive) {
    process.stdout.write(`\r${progressBar(progress)}`);
    return;
  }
  // Without a terminal, a line at each quarter rather than a bar redrawn in place.
  const quarter = Math.floor((4 * progress.settled) / Math.max(1, progress.total));
  if (quarter > printedQuarter) {
    printedQuarter = quarter;
    console.log(progressBar(progress));
  }
};

console.log('sqs-inbox main job: embedded PostgreSQL, the Data API and SQS emulators, the order worker behind the Lambda poller');
let report: MainJobReport;
try {
  report = await runMainJob({
    orders: Number(values.orders),
    queue: values.queue as 'fifo' | 'standard',
    mode: values.mode as 'statement' | 'transaction',
    crashRate: Number(values['fault-rate']),
    deliverTwiceRate: Number(values['twice-rate']),
    producerRetryRate: Number(values['retry-rate']),
    poison: Number(values.poison),
    stuck: Number(values.stuck),
    seed: Number(values.seed),
    pollers: Number(values.pollers),
    onProgress,
  });
} catch (error) {
  if (interactive) process.stdout.write('\n');
  if (error instanceof InboxConfigError) {
    console.error(`${error.message}\n\n${usage}`);
    process.exit(2);
  }
  throw error;
}
if (interactive) process.stdout.write('\n');

const lines: [string, number | string][] = [
  ['queue', `${report.queue}, ${report.mode} mode`],
  ['unique orders', report.orders],
  ['messages sent', `${report.sent} (${report.orders} orders, ${report.sent - report.orders} poison)`],
  ['producer retries', `${report.producerRetries.lostAnswers} batches whose answer was lost, ${report.producerRetries.failedEntries} failed entries`],
  ['messages SQS held', `${report.stored}${report.queue === 'fifo' ? ' (FIFO dropped the retried copies)' : ' (retried copies included)'}`],
  ['deliveries', `${report.deliveries} in ${report.invocations} invocations`],
  ['crashes before commit', report.crashes.beforeCommit],
  ['crashes after commit', report.crashes.afterCommit],
  ['delivered twice at once', report.deliveredTwice],
  ['orders applied', report.applied],
  ['duplicates suppressed', report.duplicatesSuppressed],
  ['rejected (poison)', report.rejected],
  ['in the DLQ', `${report.inDlq} (${report.stuckInDlq} locked by a stuck session, ${report.inDlq - report.stuckInDlq} failed ${report.maxReceiveCount} receives)`],
  ['not sent (producer gave up)', report.notSent],
  ['double effects (must be 0)', report.doubleEffects],
  ['lost (must be 0)', report.lost],
  ['seconds', report.seconds.toFixed(1)],
];
for (const [label, value] of lines) console.log(`${label.padEnd(28)} ${value}`);
if (report.doubleEffects > 0 || report.lost > 0) {
  console.error(`FAILED: the inbox let an effect through twice or lost a message (lost keys: ${report.lostKeys.slice(0, 10).join(', ')})`);
  process.exit(1);
}
