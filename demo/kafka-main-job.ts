import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { processKafkaBatch, type Database, type InboxOptions, type Outcome } from '../functions/inbox/index.js';
import type { KafkaRecord } from '../functions/inbox/kafka/index.js';
import { withDefaults } from '../functions/inbox/internal.js';
import type { OutgoingMessage } from '../functions/inbox/producer/index.js';
import { RECORD_PAYMENT_CONSUMER, kafkaRecordPaymentOptions } from '../functions/order-worker/record-payment.js';
import { SHIP_ORDER_CONSUMER, kafkaShipOrderOptions } from '../functions/order-worker/ship-order.js';
import { localDataApiClient, localDataApiDatabase, startDataApi, type DataApiStats, type RunningDataApi } from '../local/data-api/index.js';
import { KafkaLog, ProduceAckLostError, startKafkaEventSource, type KafkaEventSourceStats, type LogRecord, type RunningKafkaEventSource } from '../local/kafka/index.js';
import { settle, type Accounts } from './accounts.js';
import { migrateReferenceDatabase } from './reference-database.js';
import type { CrashPoint } from './crashing-handler.js';
import { crashingKafkaHandler } from './crashing-kafka-handler.js';
import { dataApiEnvironment, type LambdaEnvironment } from './lambda-environment.js';
import { releaseRun, runDatabase } from './main-job.js';
import { outcomeTally, type OutcomeTally } from './outcome-tally.js';
import { countSettled, lockOrders, readEffects, readInbox, readKept, seedOrders } from './order-rows.js';
import type { ProgressState } from './progress-bar.js';
import { operatorStatus, type OperatorStatus } from './operator-status.js';
import { seededRandom } from './seeded-random.js';
import { waitUntil } from './wait-until.js';
import { checkCommonRunSettings, settingChecks } from './setting-checks.js';
import { orderWorkload, type Workload, type WorkerMode } from './workload.js';
import { runPool } from './run-pool.js';

/** Options of `runKafkaMainJob`. */
export interface KafkaMainJobOptions {
  /**
   * Orders to produce, one record each.
   * @default 3000
   */
  readonly orders?: number;
  /**
   * `statement`: the ship-order example; `transaction`: the record-payment example.
   * @default 'statement'
   */
  readonly mode?: WorkerMode;
  /**
   * Partitions of the topic; records are keyed by customer, so a customer's records keep their order.
   * @default 8
   */
  readonly partitions?: number;
  /**
   * Share of invocations whose process dies, at a random commit point of the batch.
   * @default 0.1
   */
  readonly crashRate?: number;
  /**
   * Where the crashes happen.
   * @default ['before-commit', 'after-commit']
   */
  readonly crashes?: readonly CrashPoint['when'][];
  /**
   * Share of batches handed to two invocations at once, as a consumer group rebalance does (a
   * batch holds up to 100 records, so this is per batch, not per record as on SQS).
   * @default 0.1
   */
  readonly deliverTwiceRate?: number;
  /**
   * Share of produce calls whose acknowledgement is lost: the producer sends the record again, and
   * the log holds it twice, at two offsets, with one idempotency-key header.
   * @default 0.05
   */
  readonly producerRetryRate?: number;
  /**
   * Records the worker cannot parse: they end rejected, with their reason in the inbox.
   * @default 20
   */
  readonly poison?: number;
  /**
   * Orders a stuck session keeps locked: their records fail at the lock timeout every time, use up
   * their retries and go to the on-failure destination.
   * @default 3
   */
  readonly stuck?: number;
  /**
   * Customers (record keys) the orders are spread over.
   * @default 50
   */
  readonly groups?: number;
  /**
   * Seed of the workload and of the fault decisions.
   * @default 1
   */
  readonly seed?: number;
  /**
   * Pollers of the event source (provisioned mode), each owning some partitions.
   * @default 4
   */
  readonly pollers?: number;
  /**
   * Records per invocation.
   * @default 100
   */
  readonly batchSize?: number;
  /**
   * Retries of a failing position before its records go to the on-failure destination.
   * @default 5
   */
  readonly retryAttempts?: number;
  /**
   * The worker's bound on a lock wait.
   * @default 500
   */
  readonly lockTimeoutMs?: number;
  /**
   * The function timeout: an invocation still running then dies.
   * @default 15000
   */
  readonly functionTimeoutMs?: number;
  /**
   * How long the Data API emulator keeps a transaction without a call (3 minutes on the service).
   * @default 3000
   */
  readonly transactionIdleTimeoutMs?: number;
  /**
   * A migrated database to run on.
   * @default a new database on an embedded PostgreSQL (or on DATABASE_URL's server), dropped at the end
   */
  readonly databaseUrl?: string;
  /**
   * How long the topic may take to be consumed before the run fails.
   * @default 120000
   */
  readonly drainTimeoutMs?: number;
  /**
   * Told how far the run is, a few times a second.
   * @default none
   */
  readonly onProgress?: (progress: ProgressState) => void;
}

/** What a Kafka run did; the accounts are read from the database and the on-failure destination. */
export interface KafkaMainJobReport extends Accounts {
  readonly mode: WorkerMode;
  readonly orders: number;
  readonly partitions: number;
  /** Records the producer meant to produce: orders and poison. */
  readonly sent: number;
  /** Produce calls whose acknowledgement was lost, each sent again. */
  readonly lostAcks: number;
  /** Records the producer gave up on; nothing is expected of them. */
  readonly notSent: number;
  /** Records the log holds: above `sent` by the copies a lost acknowledgement left. */
  readonly stored: number;
  /** Records handed to invocations, redeliveries and double deliveries included. */
  readonly deliveries: number;
  readonly invocations: number;
  readonly crashes: { readonly beforeCommit: number; readonly afterCommit: number };
  /** Batches handed to two invocations at once. */
  readonly deliveredTwice: number;
  readonly duplicatesSuppressed: number;
  readonly failureReasons: Readonly<Record<string, number>>;
  /**
   * Pairs of records of one partition whose effects committed in the other order than their
   * offsets (the first copy of each order counts): must be 0.
   */
  readonly orderBreaks: number;
  readonly dataApi: DataApiStats;
  readonly seconds: number;
  /** `npx sqs-inbox status` of the run's database, which `npm start` ends its report with. */
  readonly status: OperatorStatus;
}

/** The defaults of `runKafkaMainJob`, in one place; `npm start -- --source kafka` shows them in its help. */
export const KAFKA_MAIN_JOB_DEFAULTS = {
  orders: 3000,
  mode: 'statement',
  partitions: 8,
  crashRate: 0.1,
  crashes: ['before-commit', 'after-commit'],
  deliverTwiceRate: 0.1,
  producerRetryRate: 0.05,
  poison: 20,
  stuck: 3,
  groups: 50,
  seed: 1,
  pollers: 4,
  batchSize: 100,
  retryAttempts: 5,
  lockTimeoutMs: 500,
  functionTimeoutMs: 15_000,
  transactionIdleTimeoutMs: 3000,
  drainTimeoutMs: 120_000,
} as const;

const TOPIC = 'orders';
const PRODUCE_ATTEMPTS = 10;

type Settings = Required<Omit<KafkaMainJobOptions, 'databaseUrl' | 'onProgress'>> & Pick<KafkaMainJobOptions, 'databaseUrl' | 'onProgress'>;

function checked(options: KafkaMainJobOptions): Settings {
  const settings: Settings = withDefaults(KAFKA_MAIN_JOB_DEFAULTS, options);
  checkCommonRunSettings(settings);
  const { whole } = settingChecks(settings);
  whole('partitions', 1, 1000);
  whole('batchSize', 1, 10_000);
  whole('retryAttempts', 0, 10_000);
  whole('functionTimeoutMs', 1000, 840_000);
  return settings;
}

/**
 * Produces one message, keyed by customer so each one's records share a partition; a lost
 * acknowledgement is sent again, up to 10 attempts. False when the producer gave up.
 *
 * @example
 * ```ts
 * const sent = await produceMessage(log, 'orders', { body: { orderId }, key: 'ship-1', groupId: 'customer-1' });
 * ```
 */
export async function produceMessage(log: KafkaLog, topic: string, message: OutgoingMessage): Promise<boolean> {
  const value = typeof message.body === 'string' ? message.body : JSON.stringify(message.body);
  const record = { key: message.groupId ?? message.key!, value, headers: { 'idempotency-key': message.key! } };
  for (let attempt = 1; ; attempt += 1) {
    try {
      await log.produce(topic, record);
      return true;
    } catch (error) {
      if (!(error instanceof ProduceAckLostError)) throw error;
      if (attempt >= PRODUCE_ATTEMPTS) return false;
    }
  }
}

/** Produces the workload in order; a lost acknowledgement is sent again. */
async function produceWorkload(log: KafkaLog, workload: Workload): Promise<{ failed: Set<string> }> {
  const failed = new Set<string>();
  for (const message of workload.messages) {
    if (!await produceMessage(log, TOPIC, message)) failed.add(message.key!);
  }
  return { failed };
}

/**
 * Counts, per partition, the records whose effect committed before an earlier record's: the
 * effect's `updated_at` (the time its statement or transaction started) must not go back along
 * the partition's offsets. Only each order's first record counts; copies are duplicates.
 */
async function countOrderBreaks(pool: pg.Pool, log: KafkaLog, partitions: number): Promise<number> {
  // Microseconds since the epoch: a Date would round two close commits to one millisecond.
  const { rows } = await pool.query<{ order_id: string; at: string }>(
    'SELECT order_id, (extract(epoch FROM updated_at) * 1000000)::bigint::text AS at FROM orders WHERE version > 0 OR paid_total > 0',
  );
  const appliedAt = new Map(rows.map((row) => [row.order_id, BigInt(row.at)]));
  let breaks = 0;
  for (let partition = 0; partition < partitions; partition += 1) {
    const seen = new Set<string>();
    let last: bigint | undefined;
    const { start, end } = log.offsets(TOPIC, partition);
    for (const record of log.read(TOPIC, partition, start, end - start)) {
      const orderId = orderIdOf(record);
      const applied = orderId === undefined ? undefined : appliedAt.get(orderId);
      if (orderId === undefined || applied === undefined || seen.has(orderId)) continue;
      seen.add(orderId);
      if (last !== undefined && applied < last) breaks += 1;
      last = applied;
    }
  }
  return breaks;
}

function orderIdOf(record: LogRecord): string | undefined {
  try {
    const body = JSON.parse(record.value.toString('utf8')) as { orderId?: unknown };
    return typeof body.orderId === 'string' ? body.orderId : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A header's value of a log record as text.
 *
 * @example
 * ```ts
 * headerOf(record, 'idempotency-key') // 'ship-0190...'
 * ```
 */
export function headerOf(record: LogRecord, name: string): string | undefined {
  return record.headers.find(([header]) => header === name)?.[1].toString('utf8');
}

/**
 * The Kafka worker of a mode, with the run's extra options.
 *
 * @example
 * ```ts
 * const options = kafkaWorker('transaction', db, { lockTimeoutMs: 500, onOutcome: () => undefined });
 * ```
 */
export function kafkaWorker(mode: WorkerMode, db: Database, extra: { consumer?: string; lockTimeoutMs: number; onOutcome: (outcome: Outcome) => void }): InboxOptions<unknown, KafkaRecord> {
  return (mode === 'statement' ? kafkaShipOrderOptions(db, extra) : kafkaRecordPaymentOptions(db, extra)) as InboxOptions<unknown, KafkaRecord>;
}

async function waitUntilConsumed(source: RunningKafkaEventSource, timeoutMs: number, onPoll: () => Promise<void>): Promise<void> {
  const lag = async () => {
    const left = source.lag();
    if (left > 0) await onPoll();
    return left;
  };
  await waitUntil(lag, (left) => left === 0, {
    timeoutMs,
    intervalMs: 100,
    timedOut: (left) => new Error(`The topic was not consumed in ${timeoutMs} ms: ${left} records left.`),
  });
}

/**
 * The main job on Lambda's Kafka event source: a PostgreSQL, the migrations through the Data API
 * emulator, a topic of `partitions` partitions in the local Kafka log, and the order worker (the
 * Kafka options of the examples, on `dataApiDatabase`, an SDK client per Lambda environment)
 * behind the Kafka poller in provisioned mode with partial batch responses. The producer's
 * acknowledgements are lost now and then (so the log holds copies), invocations die before or
 * after a commit, batches go to two invocations at once, poison records and orders locked by a
 * stuck session are mixed in. Once the topic is consumed the accounts are settled from the
 * database and the on-failure destination, and every partition's order is checked.
 *
 * @example
 * ```ts
 * const report = await runKafkaMainJob({ orders: 3000, partitions: 8 });
 * if (report.doubleEffects + report.lost + report.orderBreaks > 0) process.exit(1);
 * ```
 */
export async function runKafkaMainJob(options: KafkaMainJobOptions = {}): Promise<KafkaMainJobReport> {
  const settings = checked(options);
  const started = performance.now();
  const random = seededRandom(settings.seed ^ 0x5bd1e995);
  const consumer = settings.mode === 'statement' ? SHIP_ORDER_CONSUMER : RECORD_PAYMENT_CONSUMER;
  const workload = orderWorkload({ ...settings, fifo: true, runId: randomUUID().slice(0, 8), random: seededRandom(settings.seed) });

  const database = await runDatabase(settings.databaseUrl);
  const pool = runPool(database.url, 4);
  const run: KafkaRun = { settings, started, random, consumer, workload, database, databaseName: decodeURIComponent(new URL(database.url).pathname.slice(1)), pool, environments: [] };
  let failed = true;
  try {
    const api = await startDatabase(run);
    const { log, lostAcks } = kafkaLog(run);
    const worker = localDataApiDatabase(localDataApiClient(api.endpoint), run.databaseName);
    const { crashes, tally } = startKafkaWorker(run, log, api, worker);
    const { failureReasons } = tally;
    const { produced, stats, discarded } = await produceAndConsume(run, log);
    await worker.close();

    const accounts = settle(workload, {
      effects: await readEffects(pool, settings.mode, workload.orders),
      inbox: await readInbox(pool, consumer, workload.keys),
      kept: await readKept(pool, consumer, workload.keys),
      parked: discarded.map((record) => headerOf(record, 'idempotency-key') ?? ''),
      notSent: produced.failed,
    });
    const orderBreaks = await countOrderBreaks(pool, log, settings.partitions);
    const status = await operatorStatus(database.url);
    failed = false;
    return {
      ...accounts,
      status,
      mode: settings.mode,
      orders: settings.orders,
      partitions: settings.partitions,
      sent: workload.messages.length,
      lostAcks: lostAcks(),
      notSent: produced.failed.size,
      stored: log.stats.produced,
      deliveries: stats.records,
      invocations: stats.invocations,
      crashes,
      deliveredTwice: stats.doubleDeliveries,
      duplicatesSuppressed: tally.duplicatesSuppressed(),
      failureReasons,
      orderBreaks,
      dataApi: api.stats(),
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await releaseRun([
      () => run.source?.stop(), () => run.release?.(),
      () => Promise.all(run.environments.map((environment) => environment.close())),
      () => run.dataApi?.close(), () => pool.end(), () => database.close(),
    ], failed);
  }
}

/** What the stages of one Kafka run share; what they start is kept here, for the release at the end. */
interface KafkaRun {
  readonly settings: Settings;
  readonly started: number;
  /** The faults' stream: the lost acknowledgements, the crashes and the batches handed out twice draw from it. */
  readonly random: () => number;
  readonly consumer: string;
  readonly workload: Workload;
  readonly database: { readonly url: string };
  readonly databaseName: string;
  readonly pool: pg.Pool;
  /** The Lambda environments the invocations made, each with its own Data API client. */
  readonly environments: LambdaEnvironment[];
  dataApi?: RunningDataApi;
  source?: RunningKafkaEventSource;
  /** Ends the stuck session's locks; undefined once ended. */
  release?: () => Promise<void>;
}

/** Stage 1: the Data API emulator, the migrations through it, the orders seeded and the stuck ones locked. */
async function startDatabase(run: KafkaRun): Promise<RunningDataApi> {
  const api = await startDataApi({ databaseUrl: run.database.url, idleTimeoutMs: run.settings.transactionIdleTimeoutMs });
  run.dataApi = api;
  const adminClient = localDataApiClient(api.endpoint);
  try {
    await migrateReferenceDatabase(localDataApiDatabase(adminClient, run.databaseName));
  } finally {
    adminClient.destroy();
  }
  await seedOrders(run.pool, run.workload.orders);
  run.release = await lockOrders(run.pool, run.workload.orders.filter((order) => order.stuck).map((order) => order.orderId));
  return api;
}

/** Stage 2: the topic in a Kafka log that loses produce acknowledgements at the run's rate, and how many it lost. */
function kafkaLog(run: KafkaRun): { log: KafkaLog; lostAcks: () => number } {
  let lostAcks = 0;
  const log = new KafkaLog({ faults: { loseProduceAck: () => {
    const lose = run.random() < run.settings.producerRetryRate;
    if (lose) lostAcks += 1;
    return lose;
  } } });
  log.createTopic(TOPIC, { partitions: run.settings.partitions });
  return { log, lostAcks: () => lostAcks };
}

/** Stage 3: the order worker behind the Kafka poller, crashing and handed batches twice as the run's rates say. */
function startKafkaWorker(run: KafkaRun, log: KafkaLog, api: RunningDataApi, worker: Database): { crashes: { beforeCommit: number; afterCommit: number }; tally: OutcomeTally } {
  const { settings, random } = run;
  const crashes = { beforeCommit: 0, afterCommit: 0 };
  // Crashes spare a batch holding a record on its last attempt, as the SQS plan spares a message's
  // last receive: a crash there fails the whole batch, and the event source parks all of it, not the
  // stuck order alone. A record's deliveries are counted by its position.
  const deliveries = new Map<string, number>();
  const onLastAttempt = (records: readonly { topic: string; partition: number; offset: number }[]): boolean => {
    let last = false;
    for (const record of records) {
      const position = `${record.topic}/${record.partition}/${record.offset}`;
      const seen = deliveries.get(position) ?? 0;
      deliveries.set(position, seen + 1);
      if (seen >= settings.retryAttempts) last = true;
    }
    return last;
  };
  const tally = outcomeTally();
  const { onOutcome } = tally;
  run.source = startKafkaEventSource({
    log,
    topic: TOPIC,
    handler: crashingKafkaHandler({
      db: worker,
      // Each environment has its own Data API client, and a dead one sends nothing more.
      environment: () => {
        const environment = dataApiEnvironment(api.endpoint, run.databaseName);
        run.environments.push(environment);
        return environment;
      },
      handler: (db) => (event, context) => processKafkaBatch(event, context, kafkaWorker(settings.mode, db, { lockTimeoutMs: settings.lockTimeoutMs, onOutcome })),
      plan: (event) => {
        const records = Object.values(event.records).flat();
        const last = onLastAttempt(records);
        if (records.length === 0 || random() >= settings.crashRate || last) return undefined;
        const when = settings.crashes[Math.floor(random() * settings.crashes.length)]!;
        return { when, at: 1 + Math.floor(random() * records.length) };
      },
      openTransactions: 'abandoned',
      onCrash: (point) => {
        if (point.when === 'before-commit') crashes.beforeCommit += 1;
        else crashes.afterCommit += 1;
      },
    }),
    pollers: settings.pollers,
    batchSize: settings.batchSize,
    maxBatchingWindowMs: 50,
    functionTimeoutMs: settings.functionTimeoutMs,
    maximumRetryAttempts: settings.retryAttempts,
    functionName: 'order-worker',
    faults: { deliverTwice: (batch) => batch.attempt === 1 && random() < settings.deliverTwiceRate },
  });
  return { crashes, tally };
}

/** Stage 4: the producer writes while the pollers consume; once the topic is consumed the pollers stop and the stuck session ends. */
async function produceAndConsume(run: KafkaRun, log: KafkaLog): Promise<{ produced: { failed: Set<string> }; stats: KafkaEventSourceStats; discarded: LogRecord[] }> {
  const { settings, workload } = run;
  const source = run.source!;
  // The producer writes while the pollers consume, as in production.
  const produced = await produceWorkload(log, workload);
  const total = workload.messages.length;
  await waitUntilConsumed(source, settings.drainTimeoutMs, async () => {
    if (settings.onProgress === undefined) return;
    const parked = source.discarded.reduce((sum, given) => sum + given.records.length, 0);
    const settled = Math.min(total, await countSettled(run.pool, run.consumer, workload.keys) + parked);
    settings.onProgress({ settled, total, elapsedMs: performance.now() - run.started });
  });
  await source.stop();
  const stats = source.stats;
  const discarded = source.discarded.flatMap((given) => given.records);
  run.source = undefined;
  await run.release?.();
  run.release = undefined;
  return { produced, stats, discarded };
}
