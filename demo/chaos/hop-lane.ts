import type { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import type { StatementOutboxOptions } from '../../functions/inbox/outbox/index.js';
import { DEFAULTS } from '../../functions/inbox/internal.js';
import type { Database } from '../../functions/inbox/index.js';
import type { ShipOrder } from '../../functions/order-worker/ship-order.js';
import type { SqsFaults } from '../../local/sqs/index.js';
import type { DyingInvocation } from '../crashing-handler.js';
import { redriveQueue } from '../local-stack.js';
import { outboxFaultPlan } from '../outbox-fault-plan.js';
import { NOTICE_QUEUE_NAME, startOutboxHop, type OutboxHop, type OutboxHopReport } from '../outbox-hop.js';
import { OUTBOX_RUN_DEFAULTS, OUTBOX_SCALED_DEFAULTS } from '../outbox-run-options.js';
import type { Workload } from '../workload.js';
import { laneEnvironments, queueLaneDepth, type LaneContext, type LaneDepth } from './lane.js';

/**
 * Share of the FIFO lane's invocations (three messages of a group or more) whose visibility timeout
 * runs out mid-batch: three times the outbox run's, as the lane's batches less often hold three of one group.
 */
export const HOP_LAPSE_RATE = 0.15;

/** The second hop's lane name in the report and on the timeline. */
export const HOP_LANE = 'shipment-notices';

/** Options of `chaosHop`: what the FIFO lane's hop shares with the run. */
export interface ChaosHopOptions {
  /** The FIFO lane's workload and consumer: its shipments, and the outbox rows written under its name, are the hop's. */
  readonly workload: Workload;
  readonly consumer: string;
  readonly random: () => number;
  readonly pollers: number;
  readonly functionTimeoutMs: number;
  readonly visibilityTimeoutSeconds: number;
  /** The notice queue's and its DLQ's message retention: half the inbox retention each, as the first hop's queues. */
  readonly queueRetentionSeconds: number;
  readonly deadLetterRetentionSeconds: number;
}

/** The second hop's faults as they fired, beside `OutboxHopReport.faults` (whose send faults the hop counts itself). */
export interface ChaosHopFaults {
  noticeTwins: number;
}

/** The chaos run's second hop: the FIFO lane's outbox, the notice queue, its worker and the relay schedule. */
export interface ChaosHop {
  /** The notice queue's faults, for the one SQS emulator (copies to two pollers counted). */
  readonly sqsFaults: SqsFaults;
  readonly faults: ChaosHopFaults;
  /** Makes the notice queue and starts the notice worker and the relays. */
  start(client: SQSClient): Promise<void>;
  /** One invocation of the ship-order worker's database: its visibility timeout may run out mid-batch (the hop's lapses). */
  lapsing(db: Database, records: readonly SQSRecord[]): Database;
  /** The ship-order worker's outbox for one invocation, once started. */
  outboxFor(invocation: DyingInvocation): StatementOutboxOptions<ShipOrder, SQSRecord> | undefined;
  depth(): Promise<LaneDepth>;
  /** Waits until every outbox row is dispatched and the notice queue is empty. */
  settled(timeoutMs: number): Promise<void>;
  /** Redrives the notice DLQ, as the run does the lanes' DLQs; resolves with the messages moved. */
  redrive(): Promise<number>;
  /** Stops the relays and the notice worker, and settles the hop from the database and the notice DLQ. */
  finish(shipped: readonly string[]): Promise<OutboxHopReport>;
  /** Every fault of the hop injected, for the run's total. */
  faultCount(report: OutboxHopReport): number;
  close(): Promise<void>;
}

/**
 * The outbox's second hop in the chaos run (`startOutboxHop`, as `npm start -- --outbox` runs it):
 * the FIFO lane's ship-order worker writes an OrderShipped outbox row with each shipment, sent after
 * the commit to `shipment-notices.fifo` and read by the shipment-notice worker behind its own
 * inbox, a relay schedule sending what invocations left, under the outbox run's fault rates (send
 * crashes, lost send answers, failed entries, relay crashes, two relays at once, invocations of the
 * FIFO lane whose visibility timeout runs out mid-batch) and the run's
 * crash and twin rates; the run's restarts and pauses reach it as they reach the lanes.
 *
 * @example
 * ```ts
 * const hop = chaosHop(context, { workload, consumer: 'chaos-fifo', random: seededRandom(7), pollers: 3, functionTimeoutMs: 15_000, visibilityTimeoutSeconds: 2, queueRetentionSeconds: 150, deadLetterRetentionSeconds: 150 });
 * ```
 */
export function chaosHop(context: LaneContext, options: ChaosHopOptions): ChaosHop {
  const faults: ChaosHopFaults = { noticeTwins: 0 };
  const plan = outboxFaultPlan({
    ...OUTBOX_RUN_DEFAULTS, lapseRate: HOP_LAPSE_RATE, lapseMaxStallMs: options.functionTimeoutMs - DEFAULTS.deadlineMarginMs - 1000, crashRate: context.crashRate, crashes: ['before-commit', 'after-commit'], maxReceiveCount: context.maxReceiveCount, deliverTwiceRate: context.deliverTwiceRate,
  }, NOTICE_QUEUE_NAME, options.random);
  const environments = laneEnvironments(context);
  const { timeline } = context;
  let hop: OutboxHop | undefined;
  let sqsClient: SQSClient | undefined;
  const twice = plan.sqsFaults.deliverTwice;
  return {
    sqsFaults: {
      ...plan.sqsFaults,
      deliverTwice: (message) => {
        const fired = twice?.(message) ?? false;
        if (fired) faults.noticeTwins += 1;
        return fired;
      },
    },
    faults,
    async start(client) {
      hop = await startOutboxHop({
        stack: { sqsClient: client },
        plan,
        settings: { ...OUTBOX_RUN_DEFAULTS, deduplicationWindowMs: OUTBOX_SCALED_DEFAULTS.deduplicationWindowMs },
        orders: options.workload.orders,
        pool: context.pool,
        db: context.db,
        environment: environments.make,
        openTransactions: context.driver === 'pg' ? 'rolled-back' : 'abandoned',
        consumer: options.consumer,
        worker: {
          pollers: options.pollers, functionTimeoutMs: options.functionTimeoutMs, lockTimeoutMs: 500, deadlineMarginMs: 5000,
          visibilityTimeoutSeconds: options.visibilityTimeoutSeconds, maxReceiveCount: context.maxReceiveCount,
        },
        queueAttributes: {
          queue: { MessageRetentionPeriod: String(options.queueRetentionSeconds) },
          deadLetter: { MessageRetentionPeriod: String(options.deadLetterRetentionSeconds) },
        },
        onBatch: ({ records, result }) => {
          const failed = new Set(result.outcome === 'partial' ? result.failedIds : result.outcome === 'failed' ? records.map((record) => record.messageId) : []);
          for (const record of records) {
            timeline.delivered(record.messageAttributes['idempotency-key']?.stringValue ?? record.messageId, {
              atMs: timeline.now(), lane: HOP_LANE, copy: record.messageId,
              receive: Number(record.attributes.ApproximateReceiveCount), outcome: failed.has(record.messageId) ? 'failed' : 'acknowledged',
            });
          }
        },
      });
      sqsClient = client;
    },
    lapsing: (db, records) => plan.lapses.invocation(db, records),
    outboxFor: (invocation) => hop?.outboxFor(invocation),
    depth: () => queueLaneDepth(sqsClient!, hop!.queueUrl),
    settled: (timeoutMs) => hop!.settled(timeoutMs),
    redrive: () => redriveQueue(sqsClient!, hop!.deadLetterQueueUrl),
    finish: (shipped) => hop!.finish(shipped),
    faultCount: (report) => {
      const { sendCrashes, lostSendAnswers, failedSendEntries } = report.faults;
      return sendCrashes.beforeSend + sendCrashes.afterSend + report.faults.lapses.stalled + lostSendAnswers + failedSendEntries + report.relay.crashes + report.relay.twiceAtOnce
        + report.noticeCrashes.beforeCommit + report.noticeCrashes.afterCommit + faults.noticeTwins;
    },
    async close() {
      await hop?.stop();
      await environments.close();
    },
  };
}
