import type { SQSRecord } from 'aws-lambda';
import type pg from 'pg';
import type { Database } from '../functions/inbox/index.js';
import { sqsTarget, type Publisher, type StatementOutboxOptions } from '../functions/inbox/outbox/index.js';
import { SHIP_ORDER_CONSUMER, SHIPMENT_NOTICES_TARGET, shipOrderOutbox, type ShipOrder } from '../functions/order-worker/ship-order.js';
import { shipmentNoticeOptions } from '../functions/shipment-notices/shipment-notice.js';
import { startEventSource, type BatchReport, type RunningEventSource } from '../local/event-source/index.js';
import { createQueue } from '../local/sqs/index.js';
import { crashingHandler, crashingInvocations, type CrashPoint, type DyingInvocation, type OpenTransactionFate } from './crashing-handler.js';
import { crashingPublisher } from './crashing-publisher.js';
import { withoutTraceContext } from './trace-check.js';
import { settleDownstream, type DownstreamAccounts } from './downstream-accounts.js';
import type { LambdaEnvironment } from './lambda-environment.js';
import { drainQueue, queueDepth, queueIsEmpty, type LocalStack, type QueueDepth } from './local-stack.js';
import type { OutboxFaultCounts, OutboxFaultPlan } from './outbox-fault-plan.js';
import { countOpenOutboxRows, readNotices, readOutboxRows } from './outbox-rows.js';
import { outcomeTally, type OutcomeTally } from './outcome-tally.js';
import { startRelaySchedule, type RelayScheduleStats, type RunningRelaySchedule } from './relay-schedule.js';
import { unguardedNotices } from './unguarded-notices.js';
import { waitUntil } from './wait-until.js';
import type { SeededOrder } from './workload.js';

/** The second FIFO queue, which the order worker's outbox sends OrderShipped messages to. */
export const NOTICE_QUEUE_NAME = 'shipment-notices.fifo';

/** The settings of the second hop that a run may change. */
export interface OutboxHopSettings {
  /** How often the relay schedule fires. */
  readonly relayIntervalMs: number;
  /** The relay function's timeout, and so the lease of what a run takes. */
  readonly relayTimeoutMs: number;
  /** How long a row is left to the invocation that wrote it before a relay may send it. */
  readonly relayGraceMs: number;
  /** The notice worker without its inbox: the run must then fail. */
  readonly unguardedNotices: boolean;
  /** The outbox's target drops the rows' trace context: the trace check must then fail. */
  readonly dropTraceContext: boolean;
  /** The SQS emulator's FIFO deduplication window, as the run set it. */
  readonly deduplicationWindowMs: number;
}

/** What the second hop runs with, besides its settings: the first hop's worker shape, to mirror it. */
export interface StartOutboxHopOptions {
  /** Only its SQS client is used: the notice queue is made there. */
  readonly stack: Pick<LocalStack, 'sqsClient'>;
  readonly plan: OutboxFaultPlan;
  readonly settings: OutboxHopSettings;
  /** The run's orders, whose rows and notices are the hop's to account for. */
  readonly orders: readonly SeededOrder[];
  /** A direct pool on the run's database, for the waits and the accounts. */
  readonly pool: pg.Pool;
  /** The database the notice worker and the relays share, unless `environment` gives each their own. */
  readonly db: Database;
  readonly environment?: () => LambdaEnvironment;
  readonly openTransactions: OpenTransactionFate;
  /**
   * The consumer name the order worker runs under: its outbox rows are written under it.
   * @default 'ship-order'
   */
  readonly consumer?: string;
  readonly worker: {
    readonly pollers: number;
    readonly functionTimeoutMs: number;
    readonly lockTimeoutMs: number;
    readonly deadlineMarginMs: number;
    readonly visibilityTimeoutSeconds: number;
    readonly maxReceiveCount: number;
  };
  /**
   * More attributes of the notice queue and of its DLQ (a run that purges its inbox gives them a short MessageRetentionPeriod).
   * @default none
   */
  readonly queueAttributes?: { readonly queue?: Readonly<Record<string, string>>; readonly deadLetter?: Readonly<Record<string, string>> };
  /**
   * Told of each batch the notice worker's poller handed to an invocation, and what became of it.
   * @default none
   */
  readonly onBatch?: (batch: BatchReport) => void;
}

/** What the second hop did: its accounts from the database and the notice DLQ, and what was injected. */
export interface OutboxHopReport extends DownstreamAccounts {
  /** Shipped orders whose notice is in no span of their producer's trace; undefined without the notice worker's inbox (no kit, no spans). */
  readonly brokenTraces?: number;
  readonly unguardedNotices: boolean;
  readonly deduplicationWindowMs: number;
  readonly relay: RelayScheduleStats;
  readonly faults: OutboxFaultCounts;
  readonly noticeCrashes: { readonly beforeCommit: number; readonly afterCommit: number };
  /** Notice records handed to invocations, redeliveries included, and the invocations. */
  readonly noticeDeliveries: number;
  readonly noticeInvocations: number;
  /** Rows whose notice message the queue held under two messageIds or more: sent again past the deduplication window. */
  readonly resentCopies: number;
  /** Why notice deliveries failed, by error name and SQLSTATE. */
  readonly noticeFailureReasons: Readonly<Record<string, number>>;
}

/** The outbox rows or the notice queue did not settle in time. */
export class OutboxHopNotSettledError extends Error {
  public constructor(open: number, depth: QueueDepth, timeoutMs: number) {
    super(`after ${timeoutMs} ms the order worker still had ${open} outbox rows not dispatched and ${NOTICE_QUEUE_NAME} held `
      + `${depth.visible} visible and ${depth.inFlight} in-flight messages: look for a relay that stopped, or wait longer.`);
    this.name = 'OutboxHopNotSettledError';
  }
}

/** The second hop while it runs. */
export interface OutboxHop {
  /** The notice queue's URL, and its DLQ's. */
  readonly queueUrl: string;
  readonly deadLetterQueueUrl: string;
  /** The order worker's outbox for one invocation: its sends go through the faults of the plan. */
  outboxFor(invocation: DyingInvocation): StatementOutboxOptions<ShipOrder, SQSRecord>;
  /** Waits until every outbox row of the run is dispatched and the notice queue is empty. */
  settled(timeoutMs: number): Promise<void>;
  /** Stops the relays and the notice worker, then settles the accounts. */
  finish(shipped: readonly string[]): Promise<OutboxHopReport>;
  /** Stops what still runs; after `finish`, nothing. */
  stop(): Promise<void>;
}

/**
 * The main job's second hop on the same emulators: the notice queue (FIFO, with its DLQ), the
 * shipment-notice worker behind its own Lambda poller (crashing as the order worker does), and the
 * outbox relay on a schedule. The order worker's invocations take `outboxFor` as their outbox.
 *
 * @example
 * ```ts
 * const hop = await startOutboxHop({ stack, plan, settings, orders, pool, db, openTransactions: 'abandoned', worker });
 * // ... the first hop runs, its invocations with outbox: hop.outboxFor(invocation) ...
 * await hop.settled(60_000);
 * const report = await hop.finish(shippedOrderIds);
 * ```
 */
export async function startOutboxHop(options: StartOutboxHopOptions): Promise<OutboxHop> {
  const { stack, plan, settings, worker } = options;
  const { queueUrl, deadLetterQueueUrl } = await createQueue(stack.sqsClient, NOTICE_QUEUE_NAME, {
    attributes: { VisibilityTimeout: String(worker.visibilityTimeoutSeconds), ...options.queueAttributes?.queue },
    deadLetter: { maxReceiveCount: worker.maxReceiveCount, attributes: options.queueAttributes?.deadLetter },
  });
  const sqs = sqsTarget({ queueUrl, client: stack.sqsClient });
  const hop: HopState = {
    options,
    queueUrl,
    deadLetterQueueUrl: deadLetterQueueUrl!,
    target: settings.dropTraceContext ? withoutTraceContext(sqs) : sqs,
    keys: options.orders.map((order) => order.key),
    consumer: options.consumer ?? SHIP_ORDER_CONSUMER,
    noticeCrashes: { beforeCommit: 0, afterCommit: 0 },
    tally: outcomeTally(),
    copies: new Map(),
  };
  let source: RunningEventSource | undefined = await startNoticeWorker(hop);
  let relays: RunningRelaySchedule | undefined = startRelaySchedule({
    consumer: hop.consumer,
    db: options.db,
    environment: options.environment,
    targets: (run) => ({ [SHIPMENT_NOTICES_TARGET]: crashingPublisher(hop.target, { invocation: run, crashAt: plan.relayCrashAt }) }),
    intervalMs: settings.relayIntervalMs,
    timeoutMs: settings.relayTimeoutMs,
    graceMs: settings.relayGraceMs,
    twice: plan.relayTwice,
  });
  const stop = async () => {
    await relays?.stop();
    relays = undefined;
    await source?.stop();
    source = undefined;
  };

  return {
    queueUrl,
    deadLetterQueueUrl: hop.deadLetterQueueUrl,
    outboxFor: (invocation) => shipOrderOutbox({
      [SHIPMENT_NOTICES_TARGET]: crashingPublisher(hop.target, { invocation, crashAt: plan.sendCrashAt, onCrash: plan.onSendCrash }),
    }),
    async settled(timeoutMs) {
      // Rows first: a row is marked only after its message is in the queue, so an empty queue read after no open rows is final.
      const look = async () => ({ open: await countOpenOutboxRows(options.pool, hop.consumer, hop.keys), depth: await queueDepth(stack.sqsClient, queueUrl) });
      await waitUntil(look, ({ open, depth }) => open === 0 && queueIsEmpty(depth), {
        timeoutMs,
        timedOut: ({ open, depth }) => new OutboxHopNotSettledError(open, depth, timeoutMs),
      });
    },
    async finish(shipped) {
      const running = { relays: relays!, source: source! };
      await stop();
      return hopReport(hop, shipped, running);
    },
    stop,
  };
}

/** What the second hop's parts share while it runs. */
interface HopState {
  readonly options: StartOutboxHopOptions;
  readonly queueUrl: string;
  readonly deadLetterQueueUrl: string;
  /** The notice queue's SQS target, without the rows' trace context when the run drops it. */
  readonly target: Publisher;
  /** The run's idempotency keys, whose outbox rows are the hop's. */
  readonly keys: readonly string[];
  /** The consumer name the order worker's outbox rows are written under. */
  readonly consumer: string;
  readonly noticeCrashes: { beforeCommit: number; afterCommit: number };
  readonly tally: OutcomeTally;
  /** Messages the queue handed out under each idempotency key. */
  readonly copies: Map<string, Set<string>>;
}

/** The shipment-notice worker (or, with `unguardedNotices`, one without its inbox) behind its own Lambda poller, crashing as the order worker does. */
function startNoticeWorker(hop: HopState): Promise<RunningEventSource> {
  const { options, tally, noticeCrashes, copies } = hop;
  const { plan, settings, worker } = options;
  const crashing = {
    db: options.db,
    environment: options.environment,
    plan: plan.noticeCrashAt,
    openTransactions: options.openTransactions,
    onCrash: (point: CrashPoint) => {
      if (point.when === 'before-commit') noticeCrashes.beforeCommit += 1;
      else noticeCrashes.afterCommit += 1;
    },
  };
  return startEventSource({
    client: options.stack.sqsClient,
    queueUrl: hop.queueUrl,
    handler: settings.unguardedNotices
      ? crashingInvocations({ ...crashing, plan: (event) => plan.noticeCrashAt(event.Records) }, (db, event) => unguardedNotices(db, event))
      : crashingHandler({ ...crashing, worker: (db) => shipmentNoticeOptions(db, { lockTimeoutMs: worker.lockTimeoutMs, deadlineMarginMs: worker.deadlineMarginMs, onOutcome: tally.onOutcome }) }),
    pollers: worker.pollers,
    functionName: 'shipment-notices',
    functionTimeoutMs: worker.functionTimeoutMs,
    waitTimeSeconds: 1,
    onBatch: (batch) => {
      for (const record of batch.records) {
        const key = record.messageAttributes['idempotency-key']?.stringValue ?? record.messageId;
        copies.set(key, (copies.get(key) ?? new Set()).add(record.messageId));
      }
      options.onBatch?.(batch);
    },
    onError: () => undefined,
  });
}

/** The second hop's accounts, once its relays and worker have stopped: read from the database and the drained notice DLQ. */
async function hopReport(hop: HopState, shipped: readonly string[], stopped: { relays: RunningRelaySchedule; source: RunningEventSource }): Promise<OutboxHopReport> {
  const { options, consumer, keys } = hop;
  const { settings, plan } = options;
  const relay = stopped.relays.stats();
  const stats = stopped.source.stats;
  const parked = await drainQueue(options.stack.sqsClient, hop.deadLetterQueueUrl);
  const accounts = settleDownstream({
    shipped,
    rows: await readOutboxRows(options.pool, consumer, keys),
    notices: await readNotices(options.pool, options.orders.map((order) => order.orderId)),
    parked: parked.map((message) => message.MessageAttributes?.['idempotency-key']?.StringValue ?? ''),
  });
  return {
    ...accounts,
    unguardedNotices: settings.unguardedNotices,
    deduplicationWindowMs: settings.deduplicationWindowMs,
    relay,
    faults: plan.counts(),
    noticeCrashes: hop.noticeCrashes,
    noticeDeliveries: stats.records,
    noticeInvocations: stats.invocations,
    resentCopies: [...hop.copies.values()].filter((ids) => ids.size > 1).length,
    noticeFailureReasons: hop.tally.failureReasons,
  };
}
