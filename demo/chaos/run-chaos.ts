import { randomUUID } from 'node:crypto';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type pg from 'pg';
import type { Database } from '../../functions/inbox/index.js';
import { pgDatabase } from '../../functions/inbox/pg/index.js';
import { SHIPMENT_NOTICES_CONSUMER } from '../../functions/shipment-notices/shipment-notice.js';
import { localDataApiClient, localDataApiDatabase } from '../../local/data-api/index.js';
import { createScratchDatabase } from '../../local/index.js';
import { startPostgres, type RunningPostgres } from '../../local/postgres/index.js';
import { createQueue, localSqsClient, startSqs, type SqsFaults } from '../../local/sqs/index.js';
import { releaseAll } from '../main-job.js';
import { NOTICE_QUEUE_NAME, type OutboxHopReport } from '../outbox-hop.js';
import { OUTBOX_SCALED_DEFAULTS } from '../outbox-run-options.js';
import { seedOrders } from '../order-rows.js';
import { migrateReferenceDatabase } from '../reference-database.js';
import { seededRandom } from '../seeded-random.js';
import { waitUntil } from '../wait-until.js';
import { orderWorkload, type Workload, type WorkerMode } from '../workload.js';
import { checkChaos, type ChaosVerdict } from './chaos-check.js';
import { PURGE_AUDIT_SQL, readLaneEvidence, readPurged, type PurgeTimes } from './chaos-evidence.js';
import { chaosPlan, type ChaosOptions, type ChaosPlan, type ChaosSettings } from './chaos-plan.js';
import { chaosHop, HOP_LANE, type ChaosHop, type ChaosHopFaults } from './hop-lane.js';
import { scheduleCleanup, type CleanupRuns } from './cleanup-schedule.js';
import { scheduleFaults } from './fault-schedule.js';
import { kafkaLane } from './kafka-lane.js';
import { databaseNameOf, type Lane, type LaneContext, type LaneFaultCounts } from './lane.js';
import { restartableDataApi, type RestartableDataApi } from './restartable-data-api.js';
import { sqsLane } from './sqs-lane.js';
import { Timeline } from './timeline.js';
import { runPool } from '../run-pool.js';

/** What a chaos run did and what the check found. */
export interface ChaosReport {
  readonly plan: ChaosPlan;
  readonly verdict: ChaosVerdict;
  readonly timeline: Timeline;
  /** Faults injected by lane, per event. */
  readonly laneFaults: Readonly<Record<string, LaneFaultCounts>>;
  /** Every fault injected: the timed ones, the redrive, the per-event ones, poison and stuck orders. */
  readonly faults: number;
  readonly cleanup: CleanupRuns;
  /** Messages the redrive moved back from the SQS DLQs. */
  readonly redriven: number;
  /** Deliveries of a key after the cleanup purged its inbox row: each would apply again. The retention rule keeps it 0. */
  readonly deliveriesAfterPurge: number;
  /** Redeliveries (a receive or attempt past the first) of any key after the cleanup's first purge: the purges ran while they came. */
  readonly redeliveriesAfterFirstPurge: number;
  readonly dataApiErrors: Readonly<Record<string, number>>;
  /** The second hop's report (the outbox run's) and the notice copies to two pollers, unless the run had `outbox: false`. */
  readonly hop: (OutboxHopReport & ChaosHopFaults) | undefined;
  /** Seconds from the producers' start until every queue had drained after the redrive. */
  readonly drainedSeconds: number;
}

const VISIBILITY_TIMEOUT_SECONDS = 2;
// The longest the database may be away whatever the pause: a PostgreSQL restart planned at 3 s took
// 8.2 s on a loaded two-core machine (the server's own start), and burnt a Kafka position's retries.
const OUTAGE_FLOOR_SECONDS = 12;
// A message may fail this often before the DLQ, a Kafka position be retried this often before the
// on-failure destination: enough receives to ride out the longest outage (each delivery fails within
// about a second, the queue hands it out again after its visibility timeout, the poller retries
// after its delay), and 5 more for the crashes, as few as that so a stuck order leaves soon.
const outageSeconds = (pauseSeconds: number) => Math.max(pauseSeconds, OUTAGE_FLOOR_SECONDS);
const receivesThrough = (pauseSeconds: number) => Math.ceil(outageSeconds(pauseSeconds) / VISIBILITY_TIMEOUT_SECONDS) + 5;
const retriesThrough = (pauseSeconds: number) => Math.ceil(outageSeconds(pauseSeconds) / 0.75) + 5;
const POLLERS = 3;
const FUNCTION_TIMEOUT_MS = 15_000;

/** A lane's workload, with its stuck orders sent last: their DLQ stay before the redrive stays short, inside the DLQ's retention. */
function laneWorkload(messages: number, fifo: boolean, mode: WorkerMode, plan: ChaosPlan, seed: number): Workload {
  const { poison, stuck } = plan.settings;
  const workload = orderWorkload({ orders: messages - poison, poison, stuck, groups: 50, fifo, mode, runId: randomUUID().slice(0, 8), random: seededRandom(seed) });
  const stuckKeys = new Set(workload.orders.filter((order) => order.stuck).map((order) => order.key));
  const ordered = [...workload.messages.filter((message) => !stuckKeys.has(message.key!)), ...workload.messages.filter((message) => stuckKeys.has(message.key!))];
  return { ...workload, messages: ordered, keys: ordered.map((message) => message.key!) };
}

/** The last ordinary orders: their deletes are lost, so their committed messages reach the DLQ late, just before the redrive. */
const lostDeleteOrders = (workload: Workload, count: number) => workload.orders.filter((order) => !order.stuck).slice(-count).map((order) => order.orderId);

async function until(condition: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  await waitUntil(condition, (done) => done, { timeoutMs, timedOut: () => new Error(`The chaos run did not drain in ${timeoutMs / 1000} s: ${what}.`) });
}

const sum = (counts: LaneFaultCounts) => Object.values(counts).reduce((total, count) => total + count, 0);

/**
 * The chaos run (`npm run chaos`): SQS FIFO, SQS standard and Kafka side by side on one embedded
 * PostgreSQL through the Data API emulator (or pg), every fault of the main jobs at once, and the
 * plan's timed faults on top: PostgreSQL restarted twice, Aurora paused twice, the Data API
 * emulator restarted once, the inbox cleanup on its schedule with a short retention, and the SQS
 * DLQs redriven at the end. The check reads the database, the queues, the DLQs and the Kafka log.
 * `onStage` is told what the run is doing: its stages and, every 15 s, how far it is.
 *
 * @example
 * ```ts
 * const report = await runChaos({ messages: 1500, seed: 7 });
 * if (!report.verdict.ok) process.exit(1);
 * ```
 */
export async function runChaos(options: ChaosOptions = {}, onStage: (stage: string) => void = () => undefined): Promise<ChaosReport> {
  const plan = chaosPlan(options);
  const postgres = await startPostgres({ databaseUrl: '' });
  const steps: ReleaseStep[] = [() => postgres.close()];
  try {
    const database = await startChaosDatabase(postgres.url, steps);
    const workloads = await seedWorkloads(plan, database.pool);
    const timeline = new Timeline();
    const run: ChaosRun = { plan, settings: plan.settings, postgres, database, workloads, timeline, epochAtStart: Date.now() - timeline.now(), steps, onStage, redriving: false };
    const { lanes, hop } = await startLanes(run, laneContext(run));
    sampleTimeline(run, [...lanes, ...(hop === undefined ? [] : [hop])]);
    const { cleanup, producing } = await produceUnderFaults(run, lanes);
    const drained = await drainAndRedrive(run, lanes, hop, producing);
    const cleanupRuns = await cleanup.stop();
    await Promise.all(lanes.map((lane) => lane.stop()));
    onStage('checking');
    return await checkRun(run, lanes, hop, { ...drained, cleanupRuns });
  } finally {
    await releaseAll(steps.reverse());
  }
}

/** A step of the run's release: what was started is stopped when the run ends, last started first. */
type ReleaseStep = () => Promise<unknown> | undefined;

/** The run's database: the scratch database, a direct pool on it, the Data API emulator in front of it and a Data API database for the cleanup. */
interface ChaosDatabase {
  readonly url: string;
  readonly pool: pg.Pool;
  readonly dataApi: RestartableDataApi;
  readonly adminDb: Database;
}

/** What the stages of one chaos run share. */
interface ChaosRun {
  readonly plan: ChaosPlan;
  readonly settings: ChaosSettings;
  readonly postgres: RunningPostgres;
  readonly database: ChaosDatabase;
  readonly workloads: Readonly<Record<'fifo' | 'standard' | 'kafka', Workload>>;
  readonly timeline: Timeline;
  /** The wall-clock time of the timeline's zero, to place the cleanup's purges on it. */
  readonly epochAtStart: number;
  /** What to release when the run ends; a stage pushes what it starts. */
  readonly steps: ReleaseStep[];
  readonly onStage: (stage: string) => void;
  /** Set when the redrive starts: the operator has fixed the stuck job, so a PostgreSQL restart no longer brings it back. */
  redriving: boolean;
}

/** Stage 1: a scratch database, migrated, with the purge audit, behind the restartable Data API emulator. */
async function startChaosDatabase(postgresUrl: string, steps: ReleaseStep[]): Promise<ChaosDatabase> {
  const scratch = await createScratchDatabase(postgresUrl, 'inbox_chaos');
  const pool = runPool(scratch.url, 6);
  steps.push(() => pool.end());
  const dataApi = await restartableDataApi(scratch.url, 3000);
  steps.push(() => dataApi.close());
  const adminClient = localDataApiClient(dataApi.endpoint);
  steps.push(async () => adminClient.destroy());
  const adminDb = localDataApiDatabase(adminClient, databaseNameOf(scratch.url));
  await migrateReferenceDatabase(adminDb);
  for (const statement of PURGE_AUDIT_SQL) await pool.query(statement);
  return { url: scratch.url, pool, dataApi, adminDb };
}

/** Stage 2: the three lanes' workloads, their orders seeded. */
async function seedWorkloads(plan: ChaosPlan, pool: pg.Pool): Promise<ChaosRun['workloads']> {
  const { seed } = plan.settings;
  const workloads = {
    fifo: laneWorkload(plan.lanes.fifo, true, 'statement', plan, seed),
    standard: laneWorkload(plan.lanes.standard, false, 'transaction', plan, seed + 1),
    kafka: laneWorkload(plan.lanes.kafka, true, 'transaction', plan, seed + 2),
  };
  for (const workload of Object.values(workloads)) await seedOrders(pool, workload.orders);
  return workloads;
}

/** What every lane shares, with the workers' database: the admin one on the Data API, a pool of their own on pg. */
function laneContext(run: ChaosRun): LaneContext {
  const { settings, database } = run;
  let workerDb: Database = database.adminDb;
  if (settings.driver === 'pg') {
    const own = pgDatabase({ connectionString: database.url, max: 3 * POLLERS * 10 });
    workerDb = own;
    run.steps.push(() => own.close());
  }
  return {
    pool: database.pool, databaseUrl: database.url, dataApiEndpoint: database.dataApi.endpoint, driver: settings.driver, db: workerDb, timeline: run.timeline,
    crashRate: settings.crashRate, deliverTwiceRate: settings.deliverTwiceRate, producerRetryRate: settings.producerRetryRate, maxReceiveCount: receivesThrough(settings.pauseSeconds),
  };
}

/** The queue URLs of the SQS lanes, by queue name, once the queues are made. */
type QueueUrls = Map<string, { queueUrl: string; deadLetterQueueUrl: string }>;

/** Stage 3: the lanes and the second hop, the SQS emulator with their faults, the queues; the SQS lanes' pollers started. */
async function startLanes(run: ChaosRun, context: LaneContext): Promise<{ lanes: Lane[]; hop: ChaosHop | undefined }> {
  const { settings, workloads } = run;
  const urls: QueueUrls = new Map();
  // The lanes' faults go to the SQS emulator at its start, so the lanes come first and find its client once it runs.
  const emulator: { client?: SQSClient } = {};
  // The second hop draws from a stream of its own, so turning it off never shifts the lanes' faults.
  const hop: ChaosHop | undefined = settings.outbox ? chaosHop(context, {
    workload: workloads.fifo, consumer: 'chaos-fifo', random: seededRandom(settings.seed ^ 0x54), pollers: POLLERS, functionTimeoutMs: FUNCTION_TIMEOUT_MS,
    visibilityTimeoutSeconds: VISIBILITY_TIMEOUT_SECONDS, queueRetentionSeconds: run.plan.queueRetentionSeconds, deadLetterRetentionSeconds: run.plan.deadLetterRetentionSeconds,
  }) : undefined;
  const sqsLanes = chaosSqsLanes(run, context, { hop, client: () => emulator.client!, urls });
  const client = emulator.client = await startChaosSqs(run, sqsLanes, hop);
  await createChaosQueues(run, client, urls);
  const lanes: Lane[] = [
    ...sqsLanes,
    kafkaLane(context, { name: 'kafka', consumer: 'chaos-kafka', mode: 'transaction', workload: workloads.kafka, partitions: 8, random: seededRandom(settings.seed ^ 0x53), pollers: POLLERS, retryAttempts: retriesThrough(settings.pauseSeconds) }),
  ];
  run.steps.push(() => Promise.all(lanes.map((lane) => lane.close())));
  if (hop !== undefined) {
    await hop.start(client);
    run.steps.push(() => hop.close());
  }
  for (const lane of sqsLanes) await lane.start();
  return { lanes, hop };
}

/** The FIFO lane (whose worker writes the second hop's outbox rows) and the standard lane. */
function chaosSqsLanes(run: ChaosRun, context: LaneContext, shared: { hop: ChaosHop | undefined; client: () => SQSClient; urls: QueueUrls }): ReturnType<typeof sqsLane>[] {
  const { settings, workloads } = run;
  const { hop, client, urls } = shared;
  return [
    sqsLane(context, { name: 'sqs-fifo', consumer: 'chaos-fifo', mode: 'statement', workload: workloads.fifo, queueName: 'chaos-orders.fifo', client,
      queueUrls: () => urls.get('chaos-orders.fifo')!, lostDeleteOrders: lostDeleteOrders(workloads.fifo, settings.lostDeletes), random: seededRandom(settings.seed ^ 0x51), pollers: POLLERS,
      outboxFor: (invocation) => hop?.outboxFor(invocation), lapsing: hop?.lapsing }),
    sqsLane(context, { name: 'sqs-standard', consumer: 'chaos-standard', mode: 'transaction', workload: workloads.standard, queueName: 'chaos-orders', client,
      queueUrls: () => urls.get('chaos-orders')!, lostDeleteOrders: lostDeleteOrders(workloads.standard, settings.lostDeletes), random: seededRandom(settings.seed ^ 0x52), pollers: POLLERS }),
  ];
}

/** The one SQS emulator, each queue's faults routed to the lane that owns it; resolves with its client. */
async function startChaosSqs(run: ChaosRun, sqsLanes: readonly Lane[], hop: ChaosHop | undefined): Promise<SQSClient> {
  const byQueue = new Map<string | undefined, SqsFaults>([['chaos-orders.fifo', sqsLanes[0]!.sqsFaults!], ['chaos-orders', sqsLanes[1]!.sqsFaults!]]);
  if (hop !== undefined) byQueue.set(NOTICE_QUEUE_NAME, hop.sqsFaults);
  const sqs = await startSqs({
    // With the second hop, the outbox run's window: a notice sent again after a crash between its send and its mark reaches the notice worker's inbox.
    ...(hop === undefined ? {} : { deduplicationWindowMs: OUTBOX_SCALED_DEFAULTS.deduplicationWindowMs }),
    faults: {
      deliverTwice: (message) => byQueue.get(message.queueName)?.deliverTwice?.(message) ?? false,
      failSendEntry: (entry) => byQueue.get(entry.queueName)?.failSendEntry?.(entry) ?? false,
      failDeleteEntry: (entry) => byQueue.get(entry.queueName)?.failDeleteEntry?.(entry) ?? false,
      loseResponse: (call) => byQueue.get(call.queueName)?.loseResponse?.(call) ?? false,
    },
  });
  run.steps.push(() => sqs.close());
  const client = localSqsClient(sqs.endpoint, sqs.region);
  run.steps.push(async () => client.destroy());
  return client;
}

/** The SQS lanes' queues and their DLQs, with the plan's retention and enough receives to ride out a pause. */
async function createChaosQueues(run: ChaosRun, client: SQSClient, urls: QueueUrls): Promise<void> {
  for (const name of ['chaos-orders.fifo', 'chaos-orders']) {
    const created = await createQueue(client, name, {
      attributes: { VisibilityTimeout: String(VISIBILITY_TIMEOUT_SECONDS), MessageRetentionPeriod: String(run.plan.queueRetentionSeconds) },
      deadLetter: { maxReceiveCount: receivesThrough(run.settings.pauseSeconds), attributes: { MessageRetentionPeriod: String(run.plan.deadLetterRetentionSeconds) } },
    });
    urls.set(name, { queueUrl: created.queueUrl, deadLetterQueueUrl: created.deadLetterQueueUrl! });
  }
}

/** Stage 4, in the background until the run ends: the timeline's samples, commits from the inbox (rows now and purged), depths from the queues and the log. */
function sampleTimeline(run: ChaosRun, depthOf: readonly Pick<Lane, 'depth'>[]): void {
  const { timeline, database } = run;
  let lastSaidMs = 0;
  let commitsSoFar = 0;
  let noticesSoFar = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const depths = await Promise.all(depthOf.map((lane) => lane.depth().catch(() => ({ backlog: 0, inFlight: 0 }))));
      const { rows, notices } = await database.pool.query<{ rows: string; notices: string }>(
        'SELECT ((SELECT count(*) FROM consumed_message) + (SELECT count(*) FROM chaos_purged_inbox))::text AS rows, (SELECT count(*) FROM shipment_notice)::text AS notices')
        .then((result) => ({ rows: Number(result.rows[0]!.rows), notices: Number(result.rows[0]!.notices) }), () => ({ rows: commitsSoFar, notices: noticesSoFar }));
      timeline.sample({
        commits: Math.max(0, rows - commitsSoFar),
        backlog: depths.reduce((total, depth) => total + depth.backlog, 0),
        inFlight: depths.reduce((total, depth) => total + depth.inFlight, 0),
        noticesWritten: Math.max(0, notices - noticesSoFar),
      });
      commitsSoFar = Math.max(commitsSoFar, rows);
      noticesSoFar = Math.max(noticesSoFar, notices);
      const last = timeline.samples.at(-1)!;
      if (last.atMs - lastSaidMs >= 15_000) {
        lastSaidMs = last.atMs;
        run.onStage(`t=${(last.atMs / 1000).toFixed(0)} s: ${commitsSoFar} inbox rows written, backlog ${last.backlog}, in flight ${last.inFlight}`);
      }
    }
  })();
  run.steps.push(async () => {
    sampling = false;
    await sampler;
  });
}

/** Stage 5: the producers send while the timed faults and the cleanup run; resolves when all is sent and the timed faults are over. */
async function produceUnderFaults(run: ChaosRun, lanes: readonly Lane[]): Promise<{ cleanup: { stop(): Promise<CleanupRuns> }; producing: number }> {
  const { settings, timeline, database } = run;
  run.onStage('producing');
  const producing = timeline.now();
  const schedule = scheduleFaults(run.plan.timed, {
    restartPostgres: async (downMs) => {
      await run.postgres.restart(() => new Promise((resolve) => setTimeout(resolve, downMs)));
      // The stuck job comes back after the restart ended its session, until the operator fixes it.
      if (!run.redriving) await Promise.all(lanes.map((lane) => lane.relock()));
    },
    pauseAurora: (ms) => database.dataApi.pause(ms),
    restartDataApi: (downMs) => database.dataApi.restart(downMs),
  }, timeline);
  run.steps.push(async () => schedule.cancel());
  const cleanup = scheduleCleanup(database.adminDb, { retentionMs: settings.retentionSeconds * 1000, everyMs: settings.cleanupEverySeconds * 1000 }, timeline);
  run.steps.push(() => cleanup.stop());
  await Promise.all(lanes.map((lane) => lane.produce(settings.sendSeconds * 1000)));
  run.onStage('sent');
  await schedule.done;
  return { cleanup, producing };
}

/** What the drain and the redrive came to. */
interface Drained {
  readonly redriven: number;
  readonly hopRedriven: number;
  readonly drainedSeconds: number;
}

/** Stage 6: every lane drained, the DLQs redriven, drained again; then the second hop settled, its DLQ redriven, settled again. */
async function drainAndRedrive(run: ChaosRun, lanes: readonly Lane[], hop: ChaosHop | undefined, producing: number): Promise<Drained> {
  const { timeline } = run;
  const timeoutMs = run.settings.drainTimeoutSeconds * 1000;
  const allDrained = async () => (await Promise.all(lanes.map((lane) => lane.drained().catch(() => false)))).every(Boolean);
  await until(allDrained, timeoutMs, 'a queue or the Kafka topic still held messages');
  run.onStage('redriving');
  run.redriving = true;
  const redriveAt = timeline.now();
  const redriven = (await Promise.all(lanes.map((lane) => lane.redrive()))).reduce((total, moved) => total + moved, 0);
  timeline.mark({ id: 'dlq-redrive', kind: 'redrive', atMs: redriveAt, durationMs: timeline.now() - redriveAt, detail: `${redriven} messages moved back` });
  await until(allDrained, timeoutMs, 'the redriven messages were not consumed');
  // The second hop settles after the first: the relays send what the last invocations left; then its DLQ is redriven too.
  let hopRedriven = 0;
  if (hop !== undefined) {
    await hop.settled(timeoutMs);
    const at = timeline.now();
    hopRedriven = await hop.redrive();
    timeline.mark({ id: 'notice-dlq-redrive', kind: 'redrive', atMs: at, durationMs: timeline.now() - at, detail: `${hopRedriven} notices moved back` });
    await hop.settled(timeoutMs);
  }
  return { redriven, hopRedriven, drainedSeconds: (timeline.now() - producing) / 1000 };
}

/** Stage 7: the evidence read from every lane and the second hop, the check, and the figures of the report. */
async function checkRun(run: ChaosRun, lanes: readonly Lane[], hop: ChaosHop | undefined, done: Drained & { cleanupRuns: CleanupRuns }): Promise<ChaosReport> {
  const { plan, settings, database, workloads } = run;
  const read = await Promise.all(lanes.map(async (lane) => readLaneEvidence(database.pool, await lane.facts())));
  const fifoEffects = read[0]!.evidence.effects;
  const hopReport = await hop?.finish(workloads.fifo.orders.filter((order) => (fifoEffects.get(order.orderId) ?? 0) >= 1).map((order) => order.orderId));
  const verdict = checkChaos(read.map((entry) => entry.evidence), hopReport === undefined ? undefined : { ...hopReport, lane: HOP_LANE });
  const purgeTimes = [...read.map((entry) => entry.purgedAt), ...(hop === undefined ? [] : [(await readPurged(database.pool, SHIPMENT_NOTICES_CONSUMER)).purgedAt])];
  const laneFaults = Object.fromEntries(lanes.map((lane) => [lane.name, lane.faults]));
  const perLane = settings.poison + settings.stuck;
  const hopFaults = hop === undefined || hopReport === undefined ? 0 : hop.faultCount(hopReport);
  const faults = plan.timed.length + (hop === undefined ? 1 : 2) + lanes.reduce((total, lane) => total + sum(lane.faults), 0) + lanes.length * perLane + hopFaults;
  return {
    plan, verdict, timeline: run.timeline, laneFaults, faults, cleanup: done.cleanupRuns, redriven: done.redriven + done.hopRedriven, ...deliveriesAfterPurges(run, purgeTimes),
    dataApiErrors: database.dataApi.stats().errors, drainedSeconds: done.drainedSeconds, hop: hop === undefined || hopReport === undefined ? undefined : { ...hopReport, ...hop.faults },
  };
}

/** Deliveries of a key after its inbox row was purged, and redeliveries of any key after the first purge. */
function deliveriesAfterPurges(run: ChaosRun, purgeTimes: readonly PurgeTimes[]): Pick<ChaosReport, 'deliveriesAfterPurge' | 'redeliveriesAfterFirstPurge'> {
  const { timeline, epochAtStart } = run;
  let deliveriesAfterPurge = 0;
  let firstPurgeMs = Number.POSITIVE_INFINITY;
  for (const purgedAt of purgeTimes) {
    for (const [key, epochMs] of purgedAt) {
      firstPurgeMs = Math.min(firstPurgeMs, epochMs - epochAtStart);
      deliveriesAfterPurge += timeline.deliveriesOf(key).filter((delivery) => delivery.atMs > epochMs - epochAtStart).length;
    }
  }
  let redeliveriesAfterFirstPurge = 0;
  for (const delivery of timeline.allDeliveries()) if (delivery.atMs > firstPurgeMs && delivery.receive > 1) redeliveriesAfterFirstPurge += 1;
  return { deliveriesAfterPurge, redeliveriesAfterFirstPurge };
}
