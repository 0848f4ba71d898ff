import { parseArgs } from 'node:util';
import { InboxConfigError } from '../functions/inbox/index.js';
import { LocalConfigError } from '../local/internal.js';
import { KAFKA_MAIN_JOB_DEFAULTS as K, runKafkaMainJob, type KafkaMainJobOptions } from '../demo/kafka-main-job.js';
import { MAIN_JOB_DEFAULTS as D, runMainJob, type MainJobOptions, type MainJobProgress } from '../demo/main-job.js';
import { checkOutboxSource, OUTBOX_SCALED_DEFAULTS as O } from '../demo/outbox-run-options.js';
import { progressBar } from '../demo/progress-bar.js';
import { kafkaRunFailure, sqsRunFailure } from '../demo/run-verdict.js';
import type { OperatorStatus } from '../demo/operator-status.js';
import { kafkaReportLines, sqsReportLines, type ReportLine } from '../demo/report-lines.js';

const usage = `npm start -- [--source sqs|kafka] [--orders ${D.orders}] [--queue ${D.queue}|standard] [--mode ${D.mode}|transaction]
                [--fault-rate ${D.crashRate}] [--crashes ${D.crashes.join(',')}] [--twice-rate ${D.deliverTwiceRate}] [--copies ${D.copies}]
                [--retry-rate ${D.producerRetryRate}] [--poison ${D.poison}] [--stuck ${D.stuck}] [--seed ${D.seed}] [--pollers ${D.pollers}]
                [--driver ${D.driver}|pg] [--redrive] [--lost-deletes N] [--partitions ${K.partitions}]
                [--outbox] [--send-crash-rate ${D.sendCrashRate}] [--send-fault-rate ${D.sendFaultRate}] [--relay-crashes ${D.relayCrashes}]
                [--relay-twice-rate ${D.relayTwiceRate}] [--lapse-rate ${D.lapseRate}] [--dedup-window-ms ${O.deduplicationWindowMs}] [--unguarded-notices]

  --source      sqs: the SQS emulator and Lambda's SQS poller (the default)
                kafka: a local Kafka log and Lambda's Kafka poller (provisioned mode, partial batch
                responses); --queue, --copies, --driver and --redrive are SQS's only
  --orders      unique orders, one message each
  --queue       a FIFO queue and DLQ (as the deployed stack) or standard ones
  --mode        statement: the ship-order worker (one Data API call a message)
                transaction: the record-payment worker (two tables in the claim's transaction)
  --fault-rate  share of invocations that die, at a random commit point of their batch
  --crashes     where they die: before-commit, after-commit, or both (comma-separated)
  --twice-rate  share of messages SQS hands to two pollers at once (Kafka: of batches, default ${K.deliverTwiceRate})
  --copies      most pollers that hold one message at once (standard queue): 3 delivers a message 1-3 times
  --retry-rate  share of producer batches whose answer is lost, and of entries SQS fails
  --poison      messages the worker cannot parse (rejected)
  --stuck       orders locked by a stuck session (their messages end in the DLQ)
  --seed        seed of the workload and of the fault decisions
  --pollers     event-source pollers (invocations at once)
  --driver      data-api: the worker on dataApiDatabase through the emulator, as deployed
                pg: the worker on pgDatabase, straight to PostgreSQL, to compare
  --redrive     once the queue has drained, unlock the stuck orders and redrive the DLQ
                (StartMessageMoveTask); the redriven messages must apply once or be duplicates
  --lost-deletes  orders whose every delete is lost until the redrive (default 5 with --redrive):
                committed, then dead-lettered by their receives
  --partitions  partitions of the Kafka topic (--source kafka)
  --outbox      the second hop: the order worker sends an OrderShipped through its outbox for each
                order it ships, to a second FIFO queue that the shipment-notice worker consumes
                behind its own inbox; a scheduled relay sends what the invocations left (statement
                mode; the function timeout is ${O.functionTimeoutMs} ms there, scaled down)
  --send-crash-rate  share of the order worker's invocations that send whose process dies in the
                send: after the commit and before the send, or after the send and before the mark
  --send-fault-rate  share of the outbox's SendMessageBatch answers lost (SQS took the batch), and
                of its entries SQS fails
  --relay-crashes  relay runs that die in a send, before it or after it and before the mark
  --relay-twice-rate  share of the relay schedule's firings that start two relays at once
  --lapse-rate  share of the order worker's invocations (of 2 messages or more) whose visibility
                timeout runs out mid-batch: a second invocation writes their FIFO groups beside them
  --dedup-window-ms  the SQS emulator's FIFO deduplication window (SQS: 300000), scaled down on
                --outbox so a row sent again after a crash reaches the notice worker's inbox
  --unguarded-notices  the notice worker without its inbox: the run must fail (double effects)
  --drop-trace-context  the outbox sends its rows without their trace context: the run must fail
                (broken traces; with --outbox every order is traced through an in-memory exporter)`;

const { values } = parseArgs({
  options: {
    orders: { type: 'string' },
    queue: { type: 'string' },
    mode: { type: 'string' },
    'fault-rate': { type: 'string' },
    crashes: { type: 'string' },
    copies: { type: 'string' },
    driver: { type: 'string' },
    'twice-rate': { type: 'string' },
    'retry-rate': { type: 'string' },
    poison: { type: 'string' },
    stuck: { type: 'string' },
    seed: { type: 'string' },
    pollers: { type: 'string' },
    source: { type: 'string', default: 'sqs' },
    redrive: { type: 'boolean', default: false },
    'lost-deletes': { type: 'string' },
    partitions: { type: 'string' },
    outbox: { type: 'boolean', default: false },
    'send-crash-rate': { type: 'string' },
    'send-fault-rate': { type: 'string' },
    'relay-crashes': { type: 'string' },
    'relay-twice-rate': { type: 'string' },
    'lapse-rate': { type: 'string' },
    'dedup-window-ms': { type: 'string' },
    'unguarded-notices': { type: 'boolean', default: false },
    'drop-trace-context': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(usage);
  process.exit(0);
}

// A flag left out is left to the main job's defaults.
const numberOf = (text: string | undefined) => (text === undefined ? undefined : Number(text));
const options: MainJobOptions = {
  orders: numberOf(values.orders),
  queue: values.queue as MainJobOptions['queue'],
  mode: values.mode as MainJobOptions['mode'],
  crashRate: numberOf(values['fault-rate']),
  crashes: values.crashes === undefined ? undefined : (values.crashes.split(',') as MainJobOptions['crashes']),
  copies: numberOf(values.copies),
  driver: values.driver as MainJobOptions['driver'],
  deliverTwiceRate: numberOf(values['twice-rate']),
  producerRetryRate: numberOf(values['retry-rate']),
  poison: numberOf(values.poison),
  stuck: numberOf(values.stuck),
  seed: numberOf(values.seed),
  pollers: numberOf(values.pollers),
  redrive: values.redrive,
  lostDeletes: numberOf(values['lost-deletes']),
  outbox: values.outbox,
  sendCrashRate: numberOf(values['send-crash-rate']),
  sendFaultRate: numberOf(values['send-fault-rate']),
  relayCrashes: numberOf(values['relay-crashes']),
  relayTwiceRate: numberOf(values['relay-twice-rate']),
  lapseRate: numberOf(values['lapse-rate']),
  deduplicationWindowMs: numberOf(values['dedup-window-ms']),
  unguardedNotices: values['unguarded-notices'],
  dropTraceContext: values['drop-trace-context'],
};
const kafkaOptions: KafkaMainJobOptions = {
  orders: options.orders,
  mode: options.mode,
  crashRate: options.crashRate,
  crashes: options.crashes,
  deliverTwiceRate: options.deliverTwiceRate,
  producerRetryRate: options.producerRetryRate,
  poison: options.poison,
  stuck: options.stuck,
  seed: options.seed,
  pollers: options.pollers,
  partitions: numberOf(values.partitions),
};
if (values.source !== 'sqs' && values.source !== 'kafka') {
  console.error(`--source is sqs or kafka, not ${values.source}\n\n${usage}`);
  process.exit(2);
}
try {
  checkOutboxSource({ source: values.source, outbox: values.outbox });
} catch (error) {
  if (!(error instanceof LocalConfigError)) throw error;
  console.error(`${error.message}\n\n${usage}`);
  process.exit(2);
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

// The AWS SDK prints a paragraph per process on Node.js < 22 (its releases after January 2027 need 22): one line instead.
if (Number(process.versions.node.split('.')[0]) < 22 && process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED === undefined) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  console.log(`note: Node.js ${process.version}; AWS SDK releases after January 2027 need Node.js 22 (the deployed functions run Node.js 24)`);
}
const kafka = values.source === 'kafka';
console.log(kafka
  ? 'sqs-inbox main job: embedded PostgreSQL, the Data API emulator, a local Kafka log, the order worker behind the Lambda Kafka poller'
  : `sqs-inbox main job: embedded PostgreSQL, the Data API and SQS emulators, the order worker behind the Lambda poller${values.outbox ? ', its outbox, the relay and the shipment-notice worker' : ''}`);
let lines: ReportLine[];
let broken: string | undefined;
let status: OperatorStatus;
try {
  if (kafka) {
    const report = await runKafkaMainJob({ ...kafkaOptions, onProgress });
    lines = kafkaReportLines(report);
    broken = kafkaRunFailure(report);
    status = report.status;
  } else {
    const report = await runMainJob({ ...options, onProgress });
    lines = sqsReportLines(report);
    broken = sqsRunFailure(report);
    status = report.status;
  }
} catch (error) {
  if (interactive) process.stdout.write('\n');
  if (error instanceof InboxConfigError || error instanceof LocalConfigError) {
    console.error(`${error.message}\n\n${usage}`);
    process.exit(2);
  }
  throw error;
}
if (interactive) process.stdout.write('\n');
for (const [label, value] of lines) console.log(`${label.padEnd(38)} ${value}`);
// What an operator would see of this run: its own database through `npx sqs-inbox status`.
console.log(`\nnpx sqs-inbox status of this run's database (exit ${status.exitCode}):\n${status.text}`);
if (broken !== undefined) {
  console.error(`FAILED: ${broken}`);
  process.exit(1);
}
