import { processKafkaBatch } from '../../functions/inbox/index.js';
import { kafkaHeader } from '../../functions/inbox/kafka/index.js';
import { KafkaLog, startKafkaEventSource, type KafkaBatchReport, type KafkaHandler, type RunningKafkaEventSource } from '../../local/kafka/index.js';
import { crashingKafkaHandler } from '../crashing-kafka-handler.js';
import { headerOf, kafkaWorker, produceMessage } from '../kafka-main-job.js';
import type { Workload, WorkerMode } from '../workload.js';
import { crashCounter, laneEnvironments, noFaults, paced, stuckSession, type Lane, type LaneContext } from './lane.js';
import type { Timeline } from './timeline.js';

/** Options of `kafkaLane`. */
export interface KafkaLaneOptions {
  readonly name: string;
  readonly consumer: string;
  readonly mode: WorkerMode;
  readonly workload: Workload;
  readonly partitions: number;
  readonly random: () => number;
  readonly pollers: number;
  /**
   * Retries of a failing position before its records go to the on-failure destination: enough to
   * ride out an Aurora pause (each retry fails in about a second), few enough that a stuck order
   * leaves its partition.
   */
  readonly retryAttempts: number;
}

const TOPIC = 'orders';

/**
 * The Kafka lane of the chaos run: a topic in the local Kafka log, the main job's Kafka worker of
 * `mode` under its own consumer name behind the Kafka poller (provisioned, partial batch
 * responses), crashing invocations, batches handed to two invocations, lost batch answers and lost
 * produce acknowledgements. The queue's order is the log's: per partition, by offset, the first
 * copy of each key.
 *
 * @example
 * ```ts
 * const lane = kafkaLane(context, { name: 'kafka', consumer: 'chaos-kafka', mode: 'transaction', ... });
 * ```
 */
export function kafkaLane(context: LaneContext, options: KafkaLaneOptions): Lane {
  const faults = noFaults();
  const { random } = options;
  const { timeline } = context;
  const drawn = drawnFault(random);
  const log = new KafkaLog({ faults: { loseProduceAck: drawn(context.producerRetryRate, () => { faults.lostAcks += 1; }) } });
  log.createTopic(TOPIC, { partitions: options.partitions });
  const stuck = stuckSession(context.pool, options.workload.orders.filter((order) => order.stuck).map((order) => order.orderId));
  const environments = laneEnvironments(context);
  const notSent = new Set<string>();
  const inFlight = inFlightRecords();
  let source: RunningKafkaEventSource | undefined;
  const start = () => startKafkaEventSource({
    log,
    topic: TOPIC,
    handler: inFlight.counted(crashingKafkaHandler({
      db: context.db,
      environment: environments.make,
      handler: (db) => (event, lambdaContext) => processKafkaBatch(event, lambdaContext, kafkaWorker(options.mode, db, { consumer: options.consumer, lockTimeoutMs: 500, onOutcome: () => undefined })),
      plan: (event) => {
        const records = Object.values(event.records).flat();
        if (records.length === 0 || random() >= context.crashRate) return undefined;
        return { when: random() < 0.5 ? 'before-commit' : 'after-commit', at: 1 + Math.floor(random() * records.length) };
      },
      openTransactions: context.driver === 'pg' ? 'rolled-back' : 'abandoned',
      onCrash: crashCounter(options.name, faults, timeline),
    })),
    pollers: options.pollers,
    batchSize: 100,
    maxBatchingWindowMs: 50,
    functionTimeoutMs: 15_000,
    maximumRetryAttempts: options.retryAttempts,
    retryDelayMs: 250,
    functionName: options.name,
    faults: {
      deliverTwice: (batch) => batch.attempt === 1 && drawn(Math.min(1, context.deliverTwiceRate * 5), () => { faults.twins += 1; })(),
      loseResponse: drawn(context.producerRetryRate, () => { faults.lostBatchAnswers += 1; }),
    },
    onBatch: (batch) => recordDeliveries(timeline, options.name, batch),
  });

  return {
    name: options.name,
    workload: options.workload,
    faults,
    async produce(windowMs) {
      await stuck.lock();
      source = start();
      await paced(options.workload.messages, windowMs, 20, async (part) => {
        for (const message of part) if (!await produceMessage(log, TOPIC, message)) notSent.add(message.key!);
      });
    },
    depth: async () => ({ backlog: Math.max(0, (source?.lag() ?? 0) - inFlight.count()), inFlight: inFlight.count() }),
    drained: async () => source !== undefined && source.lag() === 0,
    relock: () => stuck.lock(),
    async redrive() {
      // Kafka has no redrive: the on-failure destination keeps what it was given.
      await stuck.release();
      return 0;
    },
    stop: async () => source?.stop(),
    async facts() {
      const stuckKeys = new Set(options.workload.orders.filter((order) => order.stuck).map((order) => order.key));
      const parked = (source?.discarded ?? []).flatMap((given) => given.records.map((record) => {
        const key = headerOf(record, 'idempotency-key') ?? '';
        return { key, reason: `${stuckKeys.has(key) ? 'stuck session held its order locked; ' : ''}${given.condition} after ${given.approximateInvokeCount} invocations` };
      }));
      const { sequences, reached } = partitionSequences(log, options.partitions);
      return { lane: options.name, consumer: options.consumer, mode: options.mode, workload: options.workload, parked, notSent, reached, sequences };
    },
    async close() {
      await source?.stop();
      await stuck.release();
      await environments.close();
    },
  };
}

/** A fault drawn from the lane's stream at `rate`, counted when it fires. */
const drawnFault = (random: () => number) => (rate: number, count: () => void) => () => {
  const fired = random() < rate;
  if (fired) count();
  return fired;
};

/** The records of invocations that have not answered: in flight until an invocation answers or dies (a dead one's handler never returns). */
function inFlightRecords(): { counted(handler: KafkaHandler): KafkaHandler; count(): number } {
  let running = 0;
  return {
    counted: (handler) => async (event, lambdaContext) => {
      const records = Object.values(event.records).reduce((total, list) => total + list.length, 0);
      running += records;
      try {
        return await handler(event, lambdaContext);
      } finally {
        running -= records;
      }
    },
    count: () => running,
  };
}

/** Puts each record of a batch on the timeline, failed from where a partial answer resumes its partition, or all when the batch failed. */
function recordDeliveries(timeline: Timeline, lane: string, { event, attempt, result }: KafkaBatchReport): void {
  const failedFrom = result.outcome === 'partial' ? result.resumeAt : undefined;
  for (const [partition, records] of Object.entries(event.records)) {
    for (const record of records) {
      const resume = failedFrom?.get(partition);
      const failed = result.outcome === 'failed' || (resume !== undefined && record.offset >= resume);
      timeline.delivered(kafkaHeader(record, 'idempotency-key') ?? '', {
        atMs: timeline.now(), lane, copy: `${record.partition}:${record.offset}`, receive: attempt, outcome: failed ? 'failed' : 'acknowledged',
      });
    }
  }
}

/** The queue's order as the log holds it: per partition, by offset, the first copy of each key; and every key the log reached. */
function partitionSequences(log: KafkaLog, partitions: number): { sequences: Map<string, string[]>; reached: Set<string> } {
  const sequences = new Map<string, string[]>();
  const reached = new Set<string>();
  for (let partition = 0; partition < partitions; partition += 1) {
    const seen = new Set<string>();
    const { start: first, end } = log.offsets(TOPIC, partition);
    const keys: string[] = [];
    for (const record of log.read(TOPIC, partition, first, end - first)) {
      const key = headerOf(record, 'idempotency-key') ?? '';
      reached.add(key);
      if (seen.has(key)) continue;
      seen.add(key);
      keys.push(key);
    }
    sequences.set(`${TOPIC}-${partition}`, keys);
  }
  return { sequences, reached };
}
