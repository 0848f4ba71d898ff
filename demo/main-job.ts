import { randomUUID } from 'node:crypto';
import type { SQSRecord } from 'aws-lambda';
import type pg from 'pg';
import type { Database, InboxOptions } from '../functions/inbox/index.js';
import type { StatementOutboxOptions } from '../functions/inbox/outbox/index.js';
import { withDefaults } from '../functions/inbox/internal.js';
import { pgDatabase } from '../functions/inbox/pg/index.js';
import { sendMessages, type SendMessagesResult } from '../functions/inbox/producer/index.js';
import { RECORD_PAYMENT_CONSUMER, recordPaymentOptions } from '../functions/order-worker/record-payment.js';
import { SHIP_ORDER_CONSUMER, shipOrderOptions, type ShipOrder } from '../functions/order-worker/ship-order.js';
import type { DataApiStats } from '../local/data-api/index.js';
import { startEventSource, type EventSourceStats, type RunningEventSource } from '../local/event-source/index.js';
import type { SqsFaults } from '../local/sqs/index.js';
import { startPostgres } from '../local/postgres/index.js';
import { createScratchDatabase } from '../local/index.js';
import { LocalConfigError } from '../local/internal.js';
import { settle, type Accounts } from './accounts.js';
import { migrateReferenceDatabase } from './reference-database.js';
import { outcomeTally, type OutcomeTally } from './outcome-tally.js';
import { checkCommonRunSettings, settingChecks } from './setting-checks.js';
import { crashingHandler, type CrashPoint } from './crashing-handler.js';
import { faultsByQueue } from './queue-faults.js';
import { outboxFaultPlan, type OutboxFaultPlan } from './outbox-fault-plan.js';
import { NOTICE_QUEUE_NAME, startOutboxHop, type OutboxHop, type OutboxHopReport } from './outbox-hop.js';
import { startTraceCheck, type TraceCheck } from './trace-check.js';
import { checkOutboxRunSettings, OUTBOX_RUN_DEFAULTS, OUTBOX_SCALED_DEFAULTS, type OutboxRunOptions } from './outbox-run-options.js';
import { faultPlan, type FaultPlan } from './fault-plan.js';
import { dataApiEnvironment, type LambdaEnvironment } from './lambda-environment.js';
import { drainQueue, LOCAL_STACK_DEFAULTS, queueDepth, redriveQueue, startLocalStack, waitUntilDrained, type LocalStack } from './local-stack.js';
import { countSettled, lockOrders, readEffects, readInbox, readKept, seedOrders } from './order-rows.js';
import type { ProgressState } from './progress-bar.js';
import { operatorStatus, type OperatorStatus } from './operator-status.js';
import { seededRandom } from './seeded-random.js';
import { orderWorkload, type Workload, type WorkerMode } from './workload.js';
import { runPool } from './run-pool.js';

/** Options of `runMainJob`; those of the second hop are `OutboxRunOptions`. */
export interface MainJobOptions extends OutboxRunOptions {
  /**
   * Orders to send, one message each.
   * @default 3000
   */
  readonly orders?: number;
  /**
   * A FIFO queue (as the reference stack) or a standard one.
   * @default 'fifo'
   */
  readonly queue?: 'fifo' | 'standard';
  /**
   * `statement`: the ship-order example (one Data API call a message); `transaction`: the
   * record-payment example (two tables in the claim's transaction).
   * @default 'statement'
   */
  readonly mode?: WorkerMode;
  /**
   * Statement mode: the worker's `batchStatements` (the batch's statements committed together).
   * @default true (the kit's)
   */
  readonly batchStatements?: boolean;
  /**
   * Share of invocations whose process dies, at a random commit point of the batch.
   * @default 0.1
   */
  readonly crashRate?: number;
  /**
   * Where the crashes happen: before a commit, after one, or either at random.
   * @default ['before-commit', 'after-commit']
   */
  readonly crashes?: readonly CrashPoint['when'][];
  /**
   * Share of messages that SQS hands to two pollers at once on their first receive.
   * @default 0.02
   */
  readonly deliverTwiceRate?: number;
  /**
   * Most pollers that hold one message at once (standard queue): each copy past the second is drawn
   * at `deliverTwiceRate` again, so with 3 a message is delivered 1 to 3 times at once. FIFO hands out one copy.
   * @default 2
   */
  readonly copies?: number;
  /**
   * Share of the producer's batch sends whose answer is lost (the SDK sends the batch again) and,
   * separately, of entries SQS fails (the producer sends them again with the same keys).
   * @default 0.05
   */
  readonly producerRetryRate?: number;
  /**
   * Attempts of each entry, the first included, before the producer gives up on it.
   * @default 4
   */
  readonly producerAttempts?: number;
  /**
   * Messages the worker cannot parse: they end rejected, with their reason in the inbox.
   * @default 20
   */
  readonly poison?: number;
  /**
   * Orders whose rows a stuck session keeps locked: their messages fail at the lock timeout on every
   * delivery and end in the DLQ.
   * @default 3
   */
  readonly stuck?: number;
  /**
   * Message groups (customers) on FIFO.
   * @default 50
   */
  readonly groups?: number;
  /**
   * Seed of the workload's amounts and poison places, and of the fault decisions. Which message a
   * fault strikes still depends on timing: the pollers, the producer and the faults draw in the
   * order things happen.
   * @default 1
   */
  readonly seed?: number;
  /**
   * Event source pollers: invocations at once.
   * @default 4
   */
  readonly pollers?: number;
  /**
   * The queue's visibility timeout.
   * @default 2 (`LOCAL_STACK_DEFAULTS`)
   */
  readonly visibilityTimeoutSeconds?: number;
  /**
   * Receives before a message goes to the DLQ.
   * @default 5 (`LOCAL_STACK_DEFAULTS`)
   */
  readonly maxReceiveCount?: number;
  /**
   * The worker's bound on a lock wait.
   * @default 500
   */
  readonly lockTimeoutMs?: number;
  /**
   * The function timeout: an invocation still running then dies, as Lambda resets its environment.
   * @default 15000 (long enough for a batch stuck on a lock); 5000 with `outbox`
   */
  readonly functionTimeoutMs?: number;
  /**
   * The worker's `deadlineMarginMs`: a message is not started with less left of the invocation.
   * Must be below `functionTimeoutMs`.
   * @default 5000 (the kit's); 1500 with `outbox`
   */
  readonly deadlineMarginMs?: number;
  /**
   * How the worker reaches the database: `dataApiDatabase` through the emulator, as deployed, or
   * `pgDatabase` straight to PostgreSQL (a dead invocation's connection closes, so its open
   * transactions roll back at once), to compare the two on the same run.
   * @default 'data-api'
   */
  readonly driver?: 'data-api' | 'pg';
  /**
   * How long the Data API emulator keeps a transaction without a call, as the service does (3
   * minutes there), scaled down like the visibility timeout. A dead invocation's open transaction
   * would hold its claim's lock this long; the worker's claim ends it at the invocation's deadline.
   * @default 3000
   */
  readonly transactionIdleTimeoutMs?: number;
  /**
   * Transactions the Data API emulator holds open at once (a connection each); a Begin beyond them
   * is refused with ServiceUnavailableError. The transactions dead invocations began and never
   * called again count against it until `transactionIdleTimeoutMs`.
   * @default 100 (the emulator's own)
   */
  readonly maxTransactions?: number;
  /**
   * End the run by redriving the DLQ (StartMessageMoveTask) once the queue has drained: the stuck
   * orders are unlocked first, so their messages now apply; the messages of the `lostDeletes`
   * orders, whose effect committed long ago, come back under new messageIds and must be duplicates.
   * @default false
   */
  readonly redrive?: boolean;
  /**
   * Orders whose every delete is lost until the redrive: their effect commits on the first receive,
   * every receive after that is a duplicate, and after `maxReceiveCount` of them SQS dead-letters
   * the message anyway, as a committed message whose deletes kept failing.
   * @default 5 with `redrive`, else 0
   */
  readonly lostDeletes?: number;
  /**
   * A migrated database to run on (its orders and inbox rows are added to, nothing is dropped).
   * @default a new database on an embedded PostgreSQL (or on DATABASE_URL's server), dropped at the end
   */
  readonly databaseUrl?: string;
  /**
   * How long the queue may take to drain before the run fails.
   * @default 120000
   */
  readonly drainTimeoutMs?: number;
  /**
   * Told how far the run is, a few times a second.
   * @default none
   */
  readonly onProgress?: (progress: MainJobProgress) => void;
}

/** How far a run is: messages settled (claimed in the inbox, or in the DLQ) of those it will settle. */
export type MainJobProgress = ProgressState;

/** What a run did; the accounts are read from the database and the DLQ. */
export interface MainJobReport extends Accounts {
  readonly queue: 'fifo' | 'standard';
  readonly mode: WorkerMode;
  readonly driver: 'data-api' | 'pg';
  /** Unique orders. */
  readonly orders: number;
  /** Receives before SQS moved a message to the DLQ. */
  readonly maxReceiveCount: number;
  /** Messages the producer sent: orders and poison. */
  readonly sent: number;
  /** Messages the producer gave up on; nothing is expected of them. */
  readonly notSent: number;
  /** Sends repeated: batches whose answer was lost (the SDK sent them again) and entries SQS failed. */
  readonly producerRetries: { readonly lostAnswers: number; readonly failedEntries: number };
  /** Distinct messages SQS delivered: above `sent - notSent` on a standard queue when a lost answer left copies. */
  readonly stored: number;
  /** Records handed to invocations, redeliveries included. */
  readonly deliveries: number;
  readonly invocations: number;
  readonly crashes: { readonly beforeCommit: number; readonly afterCommit: number };
  /** Messages handed to two pollers at once. */
  readonly deliveredTwice: number;
  /** Messages the redrive moved from the DLQ back to the queue (0 without `redrive`). */
  readonly redriven: number;
  /** Orders whose deletes were lost until the redrive. */
  readonly lostDeletes: number;
  /** Deliveries the inbox acknowledged without effect, as the worker reported them. */
  readonly duplicatesSuppressed: number;
  /**
   * Why deliveries failed (and came back), by error name and SQLSTATE: `InjectedCrashError` for the
   * dead invocations, `DatabaseQueryError 55P03` for a lock wait that ran out, anything else is news.
   */
  readonly failureReasons: Readonly<Record<string, number>>;
  /** What the Data API emulator answered (the migrations included), and the transactions it still held at the end. */
  readonly dataApi: DataApiStats;
  /** The second hop's accounts and faults, with `outbox`. */
  readonly outbox: OutboxHopReport | undefined;
  readonly seconds: number;
  /** `npx sqs-inbox status` of the run's database, which `npm start` ends its report with. */
  readonly status: OperatorStatus;
}

/** The Data API emulator's counts in one line: open transactions, errors and calls by name. */
export function formatDataApiStats(stats: DataApiStats): string {
  const byName = (counts: Readonly<Record<string, number>>) => Object.entries(counts).map(([name, count]) => `${count} ${name}`).join(', ') || 'none';
  return `${stats.openTransactions} open transactions; errors: ${byName(stats.errors)}; calls: ${byName(stats.calls)}`;
}

/** The queue did not drain in time; the message says what was left and what the Data API emulator saw. */
export class MainJobNotDrainedError extends Error {
  public readonly dataApi: DataApiStats;
  public constructor(cause: Error, dataApi: DataApiStats) {
    super(`${cause.message} Data API emulator: ${formatDataApiStats(dataApi)}.`, { cause });
    this.name = 'MainJobNotDrainedError';
    this.dataApi = dataApi;
  }
}

/** The defaults of `runMainJob`, in one place; `npm start` shows them in its help. */
export const MAIN_JOB_DEFAULTS = {
  orders: 3000,
  queue: 'fifo',
  mode: 'statement',
  crashRate: 0.1,
  crashes: ['before-commit', 'after-commit'],
  deliverTwiceRate: 0.02,
  copies: 2,
  producerRetryRate: 0.05,
  producerAttempts: 4,
  poison: 20,
  stuck: 3,
  groups: 50,
  seed: 1,
  pollers: 4,
  visibilityTimeoutSeconds: LOCAL_STACK_DEFAULTS.visibilityTimeoutSeconds,
  maxReceiveCount: LOCAL_STACK_DEFAULTS.maxReceiveCount,
  lockTimeoutMs: 500,
  functionTimeoutMs: 15_000,
  deadlineMarginMs: 5000,
  batchStatements: true,
  driver: 'data-api',
  transactionIdleTimeoutMs: 3000,
  maxTransactions: 100,
  drainTimeoutMs: 120_000,
  redrive: false,
  // SQS's; a run with the outbox scales it down (OUTBOX_SCALED_DEFAULTS).
  deduplicationWindowMs: 300_000,
  ...OUTBOX_RUN_DEFAULTS,
} as const;

type Settings = Required<Omit<MainJobOptions, 'databaseUrl' | 'onProgress'>> & Pick<MainJobOptions, 'databaseUrl' | 'onProgress'>;

/** Orders with lost deletes when the run redrives and none were asked for. */
const REDRIVE_LOST_DELETES = 5;

function checked(options: MainJobOptions): Settings {
  const settings: Settings = withDefaults({
    ...MAIN_JOB_DEFAULTS,
    ...(options.outbox === true ? OUTBOX_SCALED_DEFAULTS : {}),
    lostDeletes: options.redrive === true ? REDRIVE_LOST_DELETES : 0,
  }, options);
  checkCommonRunSettings(settings);
  checkOutboxRunSettings(settings);
  const { whole, oneOf } = settingChecks(settings);
  whole('lostDeletes', 0, Math.max(0, settings.orders - settings.stuck));
  whole('producerAttempts', 1, 20);
  whole('visibilityTimeoutSeconds', 1, 43_200);
  whole('maxReceiveCount', 1, 1000);
  whole('copies', 1, 10);
  whole('functionTimeoutMs', 1000, 900_000);
  whole('deadlineMarginMs', 0, settings.functionTimeoutMs - 1);
  if (typeof settings.redrive !== 'boolean') throw new LocalConfigError(`redrive must be true or false, but ${String(settings.redrive)} was given.`);
  oneOf('queue', ['fifo', 'standard']);
  oneOf('driver', ['data-api', 'pg']);
  return settings;
}

/** The lost-delete fault of a run: which orders' deletes fail, until `stop()`. */
export interface LostDeleteFault {
  readonly failDeleteEntry: NonNullable<SqsFaults['failDeleteEntry']>;
  stop(): void;
}

/**
 * Loses every delete of these orders' messages until `stop()`, so their committed messages reach the DLQ.
 *
 * @example
 * ```ts
 * const lost = lostDeleteFault(['0190a8b2-...']); // startSqs({ faults: { failDeleteEntry: lost.failDeleteEntry } }); ... lost.stop();
 * ```
 */
export function lostDeleteFault(orderIds: readonly string[]): LostDeleteFault {
  const doomed = new Set(orderIds);
  let losing = doomed.size > 0;
  return {
    failDeleteEntry: ({ body }) => {
      if (!losing) return false;
      try {
        return doomed.has((JSON.parse(body) as { orderId?: string }).orderId ?? '');
      } catch {
        return false;
      }
    },
    stop: () => {
      losing = false;
    },
  };
}

/**
 * A database for a run: the one given, or a new one (on an embedded server) dropped at the end.
 *
 * @example
 * ```ts
 * const database = await runDatabase(undefined); // ... database.url ...; await database.close();
 * ```
 */
export async function runDatabase(given: string | undefined): Promise<{ url: string; close(): Promise<void> }> {
  if (given !== undefined) return { url: given, close: async () => undefined };
  const server = await startPostgres();
  try {
    const scratch = await createScratchDatabase(server.url, 'inbox_main_job');
    return {
      url: scratch.url,
      close: async () => {
        await scratch.drop().catch(() => undefined);
        await server.close();
      },
    };
  } catch (error) {
    await server.close();
    throw error;
  }
}

/**
 * The SQS worker of a mode: ship-order (statement, with the second hop's outbox when given) or
 * record-payment (transaction), with the run's extra options.
 *
 * @example
 * ```ts
 * const options = workerOptions('statement', db, { lockTimeoutMs: 500 });
 * ```
 */
export function workerOptions(
  mode: WorkerMode,
  db: Database,
  extra: Partial<Pick<InboxOptions<unknown>, 'consumer' | 'lockTimeoutMs' | 'deadlineMarginMs' | 'onOutcome'>> & { readonly batchStatements?: boolean },
  outbox?: StatementOutboxOptions<ShipOrder, SQSRecord>,
): InboxOptions<unknown> {
  // Transaction mode has no batching to set.
  const { batchStatements: _statementModeOnly, ...common } = extra;
  return (mode === 'statement'
    ? shipOrderOptions(db, { ...extra, ...(outbox ? { outbox } : {}) })
    : recordPaymentOptions(db, common)) as InboxOptions<unknown>;
}

/**
 * Runs every step even when one fails, so nothing is left running; the first failure is thrown at the end.
 *
 * @example
 * ```ts
 * await releaseAll([() => source.stop(), () => database.close()]);
 * ```
 */
export async function releaseAll(steps: readonly (() => Promise<unknown> | undefined)[]): Promise<void> {
  const failures: unknown[] = [];
  for (const step of steps) {
    try {
      await step();
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length > 0) throw failures[0];
}

/**
 * The main job, on one machine: a PostgreSQL, the migrations applied through the Data API emulator,
 * the SQS emulator with a queue and its DLQ, and the order worker (the deployed handler's options,
 * on `dataApiDatabase`) behind the Lambda event-source poller. A producer sends the workload with
 * `sendMessages` while SQS loses some of its answers and fails some entries; invocations die before
 * or after a commit; SQS hands some messages to two pollers at once; poison messages and orders
 * locked by a stuck session are mixed in. When the queue has drained, the DLQ is read and the
 * accounts are settled from the database: every order applied exactly once or parked in the DLQ,
 * every poison message rejected. With `outbox`, the order worker's outbox sends each shipment on to
 * a second FIFO queue and its shipment-notice worker (`startOutboxHop`), under faults of its own;
 * that hop settles after the first and its accounts are `report.outbox`.
 *
 * @example
 * ```ts
 * const report = await runMainJob({ orders: 3000, queue: 'fifo', seed: 7 });
 * if (report.doubleEffects > 0 || report.unclaimedEffects > 0 || report.lost > 0) process.exit(1);
 * ```
 */
export async function runMainJob(options: MainJobOptions = {}): Promise<MainJobReport> {
  const settings = checked(options);
  const started = performance.now();
  const plan = mainJobPlan(settings);
  const { workload, faults } = plan;
  const database = await runDatabase(settings.databaseUrl);
  const pool = runPool(database.url, 4);
  // With the second hop every order is traced, as the ADOT layer would, into an in-memory exporter.
  const traces = settings.outbox ? startTraceCheck() : undefined;
  const run: MainJobRun = { settings, plan, started, database, pool, traces, environments: [] };
  let failed = true;
  try {
    const { local, worker } = await startStack(run);
    const { crashes, tally, delivered } = await startWorkers(run, local, worker);
    const { failureReasons } = tally;
    const { sent, redriven, stats } = await produceAndDrain(run, local);
    const { accounts, outbox } = await settleAccounts(run, local, sent);
    const status = await operatorStatus(database.url);
    failed = false;
    return {
      ...accounts,
      status,
      queue: settings.queue,
      mode: settings.mode,
      driver: settings.driver,
      orders: settings.orders,
      maxReceiveCount: settings.maxReceiveCount,
      sent: workload.messages.length,
      notSent: sent.failed.length,
      producerRetries: faults.producerRetries,
      stored: delivered.size,
      deliveries: stats.records,
      invocations: stats.invocations,
      crashes,
      deliveredTwice: local.sqs.stats().faults.deliveredTwice,
      redriven,
      lostDeletes: settings.lostDeletes,
      duplicatesSuppressed: tally.duplicatesSuppressed(),
      failureReasons,
      dataApi: local.dataApi.stats(),
      outbox,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    const ownWorkerDb = run.workerDb !== run.stack?.db ? run.workerDb : undefined;
    await releaseRun([
      () => run.source?.stop(), () => run.hop?.stop(), () => run.release?.(), () => ownWorkerDb?.close(),
      () => Promise.all(run.environments.map((environment) => environment.close())),
      () => run.stack?.close(), () => pool.end(), () => database.close(), () => traces?.stop(),
    ], failed);
  }
}

/**
 * Releases what a run started, every step (`releaseAll`); when the run itself failed its failure is
 * the one to report, so a cleanup failure is thrown only after a run that went well.
 *
 * @example
 * ```ts
 * await releaseRun([() => source.stop(), () => database.close()], failed);
 * ```
 */
export async function releaseRun(steps: readonly (() => Promise<unknown> | undefined)[], runFailed: boolean): Promise<void> {
  const cleanup = releaseAll(steps);
  if (runFailed) await cleanup.catch(() => undefined);
  else await cleanup;
}

/** What a run will do, decided before anything starts: its workload and its faults. */
interface MainJobPlan {
  readonly fifo: boolean;
  readonly consumer: string;
  readonly queueName: string;
  readonly workload: Workload;
  readonly faults: FaultPlan;
  readonly lostDeletes: LostDeleteFault;
  readonly firstHopFaults: SqsFaults;
  readonly outboxPlan: OutboxFaultPlan | undefined;
}

/** What the stages of one run share; what they start is kept here, for the release at the end. */
interface MainJobRun {
  readonly settings: Settings;
  readonly plan: MainJobPlan;
  readonly started: number;
  readonly database: { readonly url: string };
  readonly pool: pg.Pool;
  readonly traces: TraceCheck | undefined;
  /** The Lambda environments the invocations made, each with its own Data API client. */
  readonly environments: LambdaEnvironment[];
  stack?: LocalStack;
  workerDb?: Database;
  source?: RunningEventSource;
  hop?: OutboxHop;
  /** Ends the stuck session's locks; undefined once ended. */
  release?: () => Promise<void>;
}

/** Stage 1: the workload and the faults, each from a seeded stream of its own. */
function mainJobPlan(settings: Settings): MainJobPlan {
  const fifo = settings.queue === 'fifo';
  const consumer = settings.mode === 'statement' ? SHIP_ORDER_CONSUMER : RECORD_PAYMENT_CONSUMER;
  const workload = orderWorkload({ ...settings, fifo, runId: randomUUID().slice(0, 8), random: seededRandom(settings.seed) });
  const queueName = fifo ? 'orders.fifo' : 'orders';
  // A stream of its own, so the faults never shift the workload.
  const faults = faultPlan({ ...settings, maxCopies: settings.copies }, queueName, seededRandom(settings.seed ^ 0x5bd1e995));
  // The first orders after the stuck ones.
  const lostDeletes = lostDeleteFault(workload.orders.filter((order) => !order.stuck).slice(0, settings.lostDeletes).map((order) => order.orderId));
  const firstHopFaults: SqsFaults = { ...faults.sqsFaults, failDeleteEntry: lostDeletes.failDeleteEntry };
  // The second hop's faults draw from a stream of their own, so adding them never shifts the first hop's.
  // A stalled invocation goes on with time left for its deadline margin and a last call.
  const lapseMaxStallMs = settings.functionTimeoutMs - settings.deadlineMarginMs - 1000;
  const outboxPlan = settings.outbox ? outboxFaultPlan({ ...settings, lapseMaxStallMs }, NOTICE_QUEUE_NAME, seededRandom(settings.seed ^ 0x27d4eb2f)) : undefined;
  return { fifo, consumer, queueName, workload, faults, lostDeletes, firstHopFaults, outboxPlan };
}

/** Stage 2: the emulators with the plan's faults, the workers' database, the migrations, the orders seeded and the stuck ones locked. */
async function startStack(run: MainJobRun): Promise<{ local: LocalStack; worker: Database }> {
  const { settings, plan, database } = run;
  const local = await startLocalStack({
    databaseUrl: database.url,
    fifo: plan.fifo,
    visibilityTimeoutSeconds: settings.visibilityTimeoutSeconds,
    maxReceiveCount: settings.maxReceiveCount,
    transactionIdleTimeoutMs: settings.transactionIdleTimeoutMs,
    maxTransactions: settings.maxTransactions,
    sqsFaults: plan.outboxPlan === undefined ? plan.firstHopFaults : faultsByQueue({ [plan.queueName]: plan.firstHopFaults, [NOTICE_QUEUE_NAME]: plan.outboxPlan.sqsFaults }),
    sqsDeduplicationWindowMs: settings.deduplicationWindowMs,
  });
  run.stack = local;
  // Four pollers of ten messages each at most, on the pg driver.
  const worker = settings.driver === 'pg' ? pgDatabase({ connectionString: database.url, max: settings.pollers * 10 }) : local.db;
  run.workerDb = worker;
  await migrateReferenceDatabase(local.db);
  await seedOrders(run.pool, plan.workload.orders);
  run.release = await lockOrders(run.pool, plan.workload.orders.filter((order) => order.stuck).map((order) => order.orderId));
  return { local, worker };
}

/** What the first hop's worker counted as it ran. */
interface WorkerCounts {
  readonly crashes: { beforeCommit: number; afterCommit: number };
  readonly tally: OutcomeTally;
  /** Distinct messageIds handed to invocations. */
  readonly delivered: Set<string>;
}

/** Stage 3: the second hop (with `outbox`), then the order worker behind its pollers, crashing as the plan says. */
async function startWorkers(run: MainJobRun, local: LocalStack, worker: Database): Promise<WorkerCounts> {
  const { settings, plan } = run;
  const counts: WorkerCounts = { crashes: { beforeCommit: 0, afterCommit: 0 }, tally: outcomeTally(), delivered: new Set() };
  const { onOutcome } = counts.tally;
  const environment = lambdaEnvironments(run, local);
  // On the Data API a dead invocation leaves its transaction open; on pg its connection closes.
  const openTransactions = settings.driver === 'pg' ? 'rolled-back' : 'abandoned';
  if (plan.outboxPlan !== undefined) {
    run.hop = await startOutboxHop({
      stack: local, plan: plan.outboxPlan, settings, orders: plan.workload.orders, pool: run.pool, db: worker, environment, openTransactions, worker: settings,
    });
  }
  const outboxOf = run.hop?.outboxFor;
  run.source = await startEventSource({
    client: local.sqsClient,
    queueUrl: local.queueUrl,
    handler: crashingHandler({
      db: worker,
      environment,
      worker: (db, invocation, records) => workerOptions(settings.mode, plan.outboxPlan?.lapses.invocation(db, records) ?? db,
        { lockTimeoutMs: settings.lockTimeoutMs, deadlineMarginMs: settings.deadlineMarginMs, onOutcome, batchStatements: settings.batchStatements }, outboxOf?.(invocation)),
      plan: plan.faults.crashAt,
      openTransactions,
      onCrash: (point) => {
        if (point.when === 'before-commit') counts.crashes.beforeCommit += 1;
        else counts.crashes.afterCommit += 1;
      },
    }),
    pollers: settings.pollers,
    functionName: 'order-worker',
    functionTimeoutMs: settings.functionTimeoutMs,
    waitTimeSeconds: 1,
    onBatch: (batch) => {
      for (const record of batch.records) counts.delivered.add(record.messageId);
    },
    // Deletes refused for a handle whose visibility timeout ran out are part of the run, not news.
    onError: () => undefined,
  });
  return counts;
}

/** Each environment has its own Data API client, and a dead one sends nothing more; on pg the workers share one pool. */
function lambdaEnvironments(run: MainJobRun, local: LocalStack): (() => LambdaEnvironment) | undefined {
  if (run.settings.driver === 'pg') return undefined;
  return () => {
    const made = dataApiEnvironment(local.dataApi.endpoint, new URL(run.database.url).pathname.slice(1));
    run.environments.push(made);
    return made;
  };
}

/** Stage 4: the producer sends while the pollers consume; the queue drains, is redriven (with `redrive`) and drains again; the second hop settles; the pollers stop. */
async function produceAndDrain(run: MainJobRun, local: LocalStack): Promise<{ sent: SendMessagesResult; redriven: number; stats: EventSourceStats }> {
  const { settings, plan } = run;
  // The producer sends while the pollers consume, as in production.
  let producerDone = false;
  const messages = run.traces?.traced(plan.workload.messages) ?? plan.workload.messages;
  const sending = sendMessages(local.sqsClient, local.queueUrl, messages, { maxAttempts: settings.producerAttempts }).finally(() => {
    producerDone = true;
  });
  // Awaited once the queue has drained; until then its failure must not count as unhandled.
  sending.catch(() => undefined);
  await drainFirstHop(run, local, () => producerDone);
  const sent = await sending;
  let redriven = 0;
  if (settings.redrive) {
    // The causes are fixed first, as an operator would: the stuck session ends, deletes work again.
    plan.lostDeletes.stop();
    await run.release?.();
    run.release = undefined;
    redriven = await redriveQueue(local.sqsClient, local.deadLetterQueueUrl);
    await drainFirstHop(run, local, () => producerDone);
  }
  // The second hop settles after the first: the relays send what the last invocations left.
  await run.hop?.settled(settings.drainTimeoutMs);
  await run.source!.stop();
  const stats = run.source!.stats;
  run.source = undefined;
  return { sent, redriven, stats };
}

/** Waits until the order queue is empty once the producer is done, telling `onProgress` how far the run is. */
async function drainFirstHop(run: MainJobRun, local: LocalStack, producerDone: () => boolean): Promise<void> {
  const { settings, plan } = run;
  const total = plan.workload.messages.length;
  await waitUntilDrained(local.sqsClient, local.queueUrl, {
    timeoutMs: settings.drainTimeoutMs,
    ready: producerDone,
    onPoll: async () => {
      if (settings.onProgress === undefined) return;
      const parked = await queueDepth(local.sqsClient, local.deadLetterQueueUrl);
      const settled = Math.min(total, await countSettled(run.pool, plan.consumer, plan.workload.keys) + parked.visible + parked.inFlight);
      settings.onProgress({ settled, total, elapsedMs: performance.now() - run.started });
    },
  }).catch((error: unknown) => {
    throw error instanceof Error ? new MainJobNotDrainedError(error, local.dataApi.stats()) : error;
  });
}

/** Stage 5: the DLQ read and the accounts settled from the database; the second hop's accounts, with its broken traces. */
async function settleAccounts(run: MainJobRun, local: LocalStack, sent: SendMessagesResult): Promise<{ accounts: Accounts; outbox: OutboxHopReport | undefined }> {
  const { settings, plan, pool, traces } = run;
  const { workload, consumer } = plan;
  const parkedMessages = await drainQueue(local.sqsClient, local.deadLetterQueueUrl);
  const effects = await readEffects(pool, settings.mode, workload.orders);
  const shipped = workload.orders.filter((order) => (effects.get(order.orderId) ?? 0) >= 1);
  const finished = await run.hop?.finish(shipped.map((order) => order.orderId));
  // Without the notice worker's inbox no kit span is made downstream: the trace check has nothing to read.
  const outbox = finished && (finished.unguardedNotices || traces === undefined ? finished : { ...finished, brokenTraces: traces.broken(shipped.map((order) => order.key), NOTICE_QUEUE_NAME) });
  const accounts = settle(workload, {
    effects,
    inbox: await readInbox(pool, consumer, workload.keys),
    kept: await readKept(pool, consumer, workload.keys),
    parked: parkedMessages.map((message) => message.MessageAttributes?.['idempotency-key']?.StringValue ?? ''),
    notSent: new Set(sent.failed.map((failure) => failure.key)),
  });
  return { accounts, outbox };
}
