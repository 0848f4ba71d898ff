import type { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import type { Database } from '../../functions/inbox/index.js';
import type { StatementOutboxOptions } from '../../functions/inbox/outbox/index.js';
import { sendMessages } from '../../functions/inbox/producer/index.js';
import type { ShipOrder } from '../../functions/order-worker/ship-order.js';
import { startEventSource, type BatchReport, type RunningEventSource } from '../../local/event-source/index.js';
import type { SqsFaults } from '../../local/sqs/index.js';
import { crashingHandler, type DyingInvocation } from '../crashing-handler.js';
import { faultPlan, type FaultPlan } from '../fault-plan.js';
import { drainQueue, queueDepth, queueIsEmpty, redriveQueue } from '../local-stack.js';
import { lostDeleteFault, workerOptions, type LostDeleteFault } from '../main-job.js';
import type { Workload, WorkerMode } from '../workload.js';
import { fifoSequences, type FirstDelivery } from './fifo-sequences.js';
import { crashCounter, laneEnvironments, noFaults, paced, queueLaneDepth, stuckSession, type Lane, type LaneContext, type LaneFaultCounts } from './lane.js';
import type { Timeline } from './timeline.js';

/** Options of `sqsLane`. */
export interface SqsLaneOptions {
  readonly name: string;
  readonly consumer: string;
  readonly mode: WorkerMode;
  readonly workload: Workload;
  readonly queueName: string;
  /** Set once the SQS emulator runs (it takes the lane's faults at its start), as the queues. */
  readonly client: () => SQSClient;
  readonly queueUrls: () => { queueUrl: string; deadLetterQueueUrl: string };
  /** Orders whose deletes are lost until the redrive. */
  readonly lostDeleteOrders: readonly string[];
  readonly random: () => number;
  readonly pollers: number;
  /**
   * The worker's outbox for one invocation (statement mode: the second hop's).
   * @default none
   */
  readonly outboxFor?: (invocation: DyingInvocation) => StatementOutboxOptions<ShipOrder, SQSRecord> | undefined;
  /**
   * One invocation's database, which may stall past its visibility timeout (the second hop's lapses).
   * @default the invocation's database as it is
   */
  readonly lapsing?: (db: Database, records: readonly SQSRecord[]) => Database;
}

const attribute = (record: { messageAttributes?: Record<string, { stringValue?: string }> }) => record.messageAttributes?.['idempotency-key']?.stringValue ?? '';

/**
 * An SQS lane of the chaos run: the main job's worker of `mode` under its own consumer name,
 * behind the Lambda poller with crashing invocations, and a producer that sends the workload at an
 * even pace while SQS loses some answers and fails some entries. Deliveries go to the timeline;
 * FIFO sequence numbers of the first delivery of each message give the queue's order per group,
 * without the messages the DLQ held at the redrive (they left their group).
 *
 * @example
 * ```ts
 * const lane = sqsLane(context, { name: 'sqs-fifo', consumer: 'chaos-fifo', mode: 'statement', ... });
 * ```
 */
export function sqsLane(context: LaneContext, options: SqsLaneOptions): Lane & { start(): Promise<void> } {
  const faults = noFaults();
  const plan = faultPlan({
    crashRate: context.crashRate, crashes: ['before-commit', 'after-commit'], maxReceiveCount: context.maxReceiveCount,
    deliverTwiceRate: context.deliverTwiceRate, maxCopies: 2, producerRetryRate: context.producerRetryRate,
  }, options.queueName, options.random);
  const lostDeletes = lostDeleteFault(options.lostDeleteOrders);
  const sqsFaults = countedSqsFaults(plan, lostDeletes, faults);
  const stuck = stuckSession(context.pool, options.workload.orders.filter((order) => order.stuck).map((order) => order.orderId));
  const environments = laneEnvironments(context);
  const deliveries = laneDeliveries(context.timeline, options.name, options.queueName.endsWith('.fifo'));
  const notSent = new Set<string>();
  let source: RunningEventSource | undefined;

  return {
    name: options.name,
    workload: options.workload,
    sqsFaults,
    faults,
    async start() {
      await stuck.lock();
      const { queueUrl } = options.queueUrls();
      source = await startEventSource({
        client: options.client(),
        queueUrl,
        handler: crashingHandler({
          db: context.db,
          environment: environments.make,
          worker: (db, invocation, records) => workerOptions(options.mode, options.lapsing?.(db, records) ?? db, { consumer: options.consumer, lockTimeoutMs: 500 }, options.outboxFor?.(invocation)),
          plan: plan.crashAt,
          openTransactions: context.driver === 'pg' ? 'rolled-back' : 'abandoned',
          onCrash: crashCounter(options.name, faults, context.timeline),
        }),
        pollers: options.pollers,
        functionName: options.name,
        functionTimeoutMs: 15_000,
        waitTimeSeconds: 1,
        onBatch: deliveries.onBatch,
        onError: () => undefined,
      });
    },
    async produce(windowMs) {
      const { queueUrl } = options.queueUrls();
      await paced(options.workload.messages, windowMs, 20, async (part) => {
        const result = await sendMessages(options.client(), queueUrl, part, { maxAttempts: 10 });
        for (const failure of result.failed) notSent.add(failure.key);
      });
    },
    depth: () => queueLaneDepth(options.client(), options.queueUrls().queueUrl),
    drained: async () => queueIsEmpty(await queueDepth(options.client(), options.queueUrls().queueUrl)),
    relock: () => stuck.lock(),
    async redrive() {
      lostDeletes.stop();
      await stuck.release();
      deliveries.redriving();
      return redriveQueue(options.client(), options.queueUrls().deadLetterQueueUrl);
    },
    async stop() {
      await source?.stop();
      faults.lostProducerAnswers = plan.producerRetries.lostAnswers;
      faults.failedEntries = plan.producerRetries.failedEntries;
    },
    async facts() {
      const parked = await readParked(options.client(), options.queueUrls().deadLetterQueueUrl, options.workload);
      const reached = new Set([...deliveries.seen, ...parked.map((entry) => entry.key)]);
      return { lane: options.name, consumer: options.consumer, mode: options.mode, workload: options.workload, parked, notSent, reached, sequences: deliveries.sequences() };
    },
    async close() {
      await source?.stop();
      await stuck.release();
      await environments.close();
    },
  };
}

/** The plan's SQS faults, the lost deletes among them, counted here: the SQS emulator's own counts are of both SQS lanes at once. */
function countedSqsFaults(plan: FaultPlan, lostDeletes: LostDeleteFault, faults: LaneFaultCounts): SqsFaults {
  const counted = <A>(hook: ((arg: A) => boolean) | undefined, count: (faults: LaneFaultCounts) => void) => (arg: A) => {
    const fired = hook?.(arg) ?? false;
    if (fired) count(faults);
    return fired;
  };
  return {
    ...plan.sqsFaults,
    deliverTwice: counted(plan.sqsFaults.deliverTwice, (counts) => { counts.twins += 1; }),
    failDeleteEntry: counted(lostDeletes.failDeleteEntry, (counts) => { counts.lostDeletes += 1; }),
  };
}

/** What an SQS lane learns from its deliveries: each on the timeline, the keys delivered, and on FIFO the first delivery of each, for the queue's order. */
function laneDeliveries(timeline: Timeline, lane: string, fifo: boolean) {
  const firstDeliveries: FirstDelivery[] = [];
  const seen = new Set<string>();
  // The run redrives once every queue has drained: each delivery after it is of a message the DLQ held.
  const redriven = new Set<string>();
  let redriving = false;
  const onBatch = ({ records, result }: BatchReport) => {
    const failed = new Set(result.outcome === 'partial' ? result.failedIds : result.outcome === 'failed' ? records.map((record) => record.messageId) : []);
    for (const record of records) {
      const key = attribute(record);
      timeline.delivered(key, {
        atMs: timeline.now(), lane, copy: record.messageId,
        receive: Number(record.attributes.ApproximateReceiveCount), outcome: failed.has(record.messageId) ? 'failed' : 'acknowledged',
      });
      if (redriving) redriven.add(key);
      if (seen.has(key)) continue;
      seen.add(key);
      if (fifo) firstDeliveries.push({ key, group: record.attributes.MessageGroupId ?? '', sequence: BigInt(record.attributes.SequenceNumber ?? '0') });
    }
  };
  return {
    onBatch,
    seen,
    redriving: () => {
      redriving = true;
    },
    sequences: () => fifoSequences(firstDeliveries, redriven),
  };
}

/** The messages a lane's DLQ holds (drained), each with why it is there. */
async function readParked(client: SQSClient, deadLetterQueueUrl: string, workload: Workload): Promise<{ key: string; reason: string }[]> {
  const stuckKeys = new Set(workload.orders.filter((order) => order.stuck).map((order) => order.key));
  return (await drainQueue(client, deadLetterQueueUrl)).map((message) => {
    const key = message.MessageAttributes?.['idempotency-key']?.StringValue ?? '';
    const reason = stuckKeys.has(key) ? 'stuck session held its order locked' : `failed ${message.Attributes?.ApproximateReceiveCount ?? '?'} receives`;
    return { key, reason };
  });
}
