import { randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { InboxConfigError } from '../../functions/inbox/index.js';
import { withDefaults } from '../../functions/inbox/internal.js';
import { lambdaContext } from '../event-source/index.js';
import { kafkaBatchResult, type KafkaBatchResult } from './kafka-batch-result.js';
import { partitionKey, toKafkaEvent, type KafkaEvent, type KafkaEventOrigin } from './kafka-event.js';
import type { KafkaBatchView, KafkaEventSourceFaults } from './kafka-faults.js';
import { KafkaLog, type LogRecord } from './kafka-log.js';
import { invokeWithTimeout } from '../lambda-invocation.js';
import type { KafkaHandler } from './kafka-handler.js';
import { deliverDiscarded, type DiscardedRecords, type KafkaOnFailureDestination } from './on-failure-destination.js';

/** Options of `startKafkaEventSource`, named after the event source mapping's settings they stand for. */
export interface StartKafkaEventSourceOptions {
  readonly log: KafkaLog;
  /** The one topic the mapping reads (Lambda's `Topics` holds exactly one). */
  readonly topic: string;
  readonly handler: KafkaHandler;
  /**
   * `aws:kafka` for Amazon MSK (events carry the cluster ARN), `SelfManagedKafka` for self-managed Kafka.
   * @default 'aws:kafka'
   */
  readonly eventSource?: KafkaEvent['eventSource'];
  /**
   * The consumer group whose offsets the poller commits (ConsumerGroupId); two sources with one
   * group id share the committed offsets, as two mappings given one id would.
   * @default a new UUID, as Lambda names a mapping's group after the mapping
   */
  readonly consumerGroupId?: string;
  /**
   * Where a partition without a committed offset starts: its oldest kept record, or its end at start-up.
   * @default 'TRIM_HORIZON'
   */
  readonly startingPosition?: 'TRIM_HORIZON' | 'LATEST';
  /**
   * Records per invocation, 1 to 10000 (BatchSize); a batch may hold records of several partitions.
   * @default 100
   */
  readonly batchSize?: number;
  /**
   * How long a poller gathers records before invoking with fewer than `batchSize`, 0 to 300000
   * (MaximumBatchingWindowInSeconds; Lambda's Kafka default is 500 ms).
   * @default 500
   */
  readonly maxBatchingWindowMs?: number;
  /**
   * Pollers (provisioned mode's event pollers), each owning the partitions `p % pollers` and running
   * one invocation at a time: a partition is never in two invocations at once, and at most
   * min(pollers, partitions) invocations run together.
   * @default 1
   */
  readonly pollers?: number;
  /**
   * The function timeout, 1 to 840000 ms (Kafka mappings support functions of at most 14 minutes):
   * `getRemainingTimeInMillis()` counts down from it, and an invocation still running then fails its whole batch.
   * @default 30000
   */
  readonly functionTimeoutMs?: number;
  /**
   * Read `batchItemFailures` from the response (FunctionResponseTypes ReportBatchItemFailures).
   * @default true
   */
  readonly reportBatchItemFailures?: boolean;
  /**
   * Retries of a failing position before its records are given up (MaximumRetryAttempts), -1 to
   * 10000; -1 retries for ever, or 10 times when there is an on-failure destination, as Lambda does.
   * @default -1
   */
  readonly maximumRetryAttempts?: number;
  /**
   * Where given-up records go (DestinationConfig.OnFailure); without one they are only listed in `discarded`.
   * @default none
   */
  readonly onFailureDestination?: KafkaOnFailureDestination;
  /**
   * Pause of a failed partition before its retry, 0 to 60000 ms. Lambda does not document one; this keeps a failing partition from spinning.
   * @default 100
   */
  readonly retryDelayMs?: number;
  /**
   * The function name in the context and its ARN.
   * @default 'local-function'
   */
  readonly functionName?: string;
  /**
   * Faults to inject; see `KafkaEventSourceFaults`.
   * @default none
   */
  readonly faults?: KafkaEventSourceFaults;
  /**
   * Told about every batch once its offsets are committed; a throw here is ignored.
   * @default none
   */
  readonly onBatch?: (report: KafkaBatchReport) => void;
  /**
   * Told when the on-failure destination refuses records (they are kept and tried again); a throw here is ignored.
   * @default console.warn
   */
  readonly onError?: (error: unknown, during: 'destination') => void;
}

/** One batch, as `onBatch` is told about it. */
export interface KafkaBatchReport {
  readonly poller: number;
  /** The request id of the invocation whose outcome counted (the second one of a double delivery). */
  readonly requestId: string;
  readonly event: KafkaEvent;
  readonly attempt: number;
  readonly result: KafkaBatchResult;
  readonly deliveredTwice: boolean;
  /** Per `'<topic>-<partition>'` of the batch, the group's committed offset afterwards. */
  readonly committed: Readonly<Record<string, number>>;
  /** Records of the batch given up and sent to the destination. */
  readonly discarded: number;
  readonly durationMs: number;
}

/** Counts since the start. */
export interface KafkaEventSourceStats {
  invocations: number;
  /** Records handed to invocations, both copies of a double delivery included. */
  records: number;
  /** Of those, records handed over before: retries, redeliveries after a failure, the second copy of a double delivery. */
  redelivered: number;
  /** Records the committed offsets moved past as processed. */
  committedRecords: number;
  /** Records given up after their retries. */
  discarded: number;
  /** Batches failed whole, by why. */
  errors: number;
  timeouts: number;
  invalidResponses: number;
  lostResponses: number;
  /** Batches whose response named failures. */
  partialBatches: number;
  doubleDeliveries: number;
  /** Commits refused because a rebalance had handed the partition on. */
  fencedCommits: number;
  destinationFailures: number;
}

/** A running Kafka event source. */
export interface RunningKafkaEventSource {
  /** Stops polling, waits for running invocations and their commits, and resolves. Records gathered but not invoked stay uncommitted. */
  stop(): Promise<void>;
  readonly stats: Readonly<KafkaEventSourceStats>;
  readonly consumerGroupId: string;
  /** Records given up, in the order they were. */
  readonly discarded: readonly DiscardedRecords[];
  /** Per `'<topic>-<partition>'`, the group's committed offset; partitions without a commit are left out. */
  committedOffsets(): Record<string, number>;
  /** Records of the topic past the group's position: what is still to be processed. */
  lag(): number;
}

interface PartitionState {
  readonly partition: number;
  readonly key: string;
  /** The next offset to hand out; the committed offset once the partition has one. */
  position: number;
  /** performance.now() before which the partition is not fetched again. */
  resumeAfter: number;
  /** The invocations that failed at one offset, in a row. */
  failures: { readonly offset: number; readonly count: number } | undefined;
  /** One past the highest offset handed out so far. */
  handedUpTo: number;
}

interface Slice {
  readonly state: PartitionState;
  readonly records: readonly LogRecord[];
}

const DEFAULTS = {
  eventSource: 'aws:kafka',
  startingPosition: 'TRIM_HORIZON',
  batchSize: 100,
  maxBatchingWindowMs: 500,
  pollers: 1,
  functionTimeoutMs: 30_000,
  reportBatchItemFailures: true,
  maximumRetryAttempts: -1,
  retryDelayMs: 100,
  functionName: 'local-function',
  faults: {} as KafkaEventSourceFaults,
  onBatch: () => undefined,
  onError: (error: unknown, during: string) => console.warn(`kafka event source: ${during} failed`, error),
} as const;
// "When you configure both infinite retries and an on-failure destination, Lambda automatically
// applies a maximum of 10 retry attempts." (kafka-retry-configurations)
const RETRIES_WITH_DESTINATION = 10;
const IDLE_WAIT_MS = 1000;
const FUNCTION_NAME = /^[A-Za-z0-9_-]{1,64}$/;
// CreateEventSourceMapping's ConsumerGroupId: 1 to 200 of these.
const CONSUMER_GROUP_ID = /^[a-zA-Z0-9-/*:_+=.@]{1,200}$/;

function requireInteger(name: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new InboxConfigError(`${name} must be a whole number from ${min} to ${max}, but ${String(value)} was given.`);
  }
}

function quietly<T>(callback: () => T, fallback: T): T {
  try {
    return callback();
  } catch {
    // A throwing observer or fault hook must not stop the poller.
    return fallback;
  }
}

/**
 * Lambda's Kafka event source mapping (Amazon MSK or self-managed, provisioned mode) on one
 * machine, reading a `KafkaLog`. Pollers own partitions; each gathers up to `batchSize` records of
 * its partitions, in offset order per partition, waiting up to the batching window for a fuller
 * batch, and invokes the handler with a Lambda-shaped event and context. After the invocation it
 * commits the consumer group's offsets as Lambda does (https://docs.aws.amazon.com/lambda/latest/dg/with-msk-process.html:
 * "After Lambda processes each batch, it commits the offsets of the messages in that batch. If your
 * function returns an error for any of the messages in a batch, Lambda retries the whole batch"):
 * a thrown error, a timeout or an invalid partial batch response retries the whole batch; a valid
 * one commits each named partition up to its lowest failed offset and retries it from there
 * (`kafkaBatchResult`). A position that keeps failing is given up after `maximumRetryAttempts`
 * retries: for a whole-batch failure the partition's records of the batch, for a named failure
 * the failed record alone; they go to the on-failure destination and the offset moves past them.
 *
 * @example
 * ```ts
 * const log = new KafkaLog();
 * log.createTopic('orders', { partitions: 3 });
 * const source = startKafkaEventSource({
 *   log,
 *   topic: 'orders',
 *   handler: (event, context) => processKafkaBatch(event, context, options),
 *   pollers: 3,
 *   maximumRetryAttempts: 3,
 *   onFailureDestination: { type: 'kafka', topic: 'orders-failed' },
 * });
 * await source.stop();
 * ```
 */
export function startKafkaEventSource(options: StartKafkaEventSourceOptions): RunningKafkaEventSource {
  const settings = withDefaults(DEFAULTS, options);
  const { log, topic, handler, onFailureDestination: destination } = settings;
  if (!(log instanceof KafkaLog)) throw new InboxConfigError('log must be a KafkaLog.');
  const partitions = log.partitions(topic);
  if (typeof handler !== 'function') throw new InboxConfigError('handler must be a function (event, context) => Promise<KafkaBatchResponse | void>.');
  if (settings.eventSource !== 'aws:kafka' && settings.eventSource !== 'SelfManagedKafka') throw new InboxConfigError(`eventSource must be 'aws:kafka' or 'SelfManagedKafka', but "${String(settings.eventSource)}" was given.`);
  if (settings.startingPosition !== 'TRIM_HORIZON' && settings.startingPosition !== 'LATEST') throw new InboxConfigError(`startingPosition must be 'TRIM_HORIZON' or 'LATEST', but "${String(settings.startingPosition)}" was given.`);
  if (!FUNCTION_NAME.test(settings.functionName)) throw new InboxConfigError(`functionName must be 1 to 64 letters, digits, hyphens or underscores, but "${settings.functionName}" was given.`);
  const consumerGroupId = settings.consumerGroupId ?? randomUUID();
  if (!CONSUMER_GROUP_ID.test(consumerGroupId)) throw new InboxConfigError(`consumerGroupId must be 1 to 200 letters, digits or - / * : _ + = . @, but "${consumerGroupId}" was given.`);
  requireInteger('batchSize', settings.batchSize, 1, 10_000);
  requireInteger('maxBatchingWindowMs', settings.maxBatchingWindowMs, 0, 300_000);
  requireInteger('pollers', settings.pollers, 1, 100);
  requireInteger('functionTimeoutMs', settings.functionTimeoutMs, 1, 840_000);
  requireInteger('maximumRetryAttempts', settings.maximumRetryAttempts, -1, 10_000);
  requireInteger('retryDelayMs', settings.retryDelayMs, 0, 60_000);
  if (destination?.type === 'kafka') {
    log.partitions(destination.topic);
    if (destination.topic === topic) throw new InboxConfigError(`The on-failure destination topic cannot be the source topic "${topic}": Lambda refuses the loop.`);
  } else if (destination?.type === 'sqs') {
    if (typeof destination.client?.send !== 'function' || typeof destination.queueUrl !== 'string' || destination.queueUrl === '') {
      throw new InboxConfigError('An SQS on-failure destination needs an SQSClient and a queueUrl.');
    }
  } else if (destination !== undefined) {
    throw new InboxConfigError(`onFailureDestination must be { type: 'sqs', client, queueUrl } or { type: 'kafka', topic }, but ${JSON.stringify(destination)} was given.`);
  }

  const retryLimit = settings.maximumRetryAttempts === -1 && destination !== undefined ? RETRIES_WITH_DESTINATION : settings.maximumRetryAttempts;
  const origin: KafkaEventOrigin = { eventSource: settings.eventSource, clusterArn: log.clusterArn, bootstrapServers: log.bootstrapServers };
  const fn = { arn: `arn:aws:lambda:${log.region}:${log.accountId}:function:${settings.functionName}` };
  const stats: KafkaEventSourceStats = {
    invocations: 0, records: 0, redelivered: 0, committedRecords: 0, discarded: 0, errors: 0, timeouts: 0,
    invalidResponses: 0, lostResponses: 0, partialBatches: 0, doubleDeliveries: 0, fencedCommits: 0, destinationFailures: 0,
  };
  const discardedRecords: DiscardedRecords[] = [];
  const stopping = new AbortController();

  const states: PartitionState[] = Array.from({ length: partitions }, (_, partition) => {
    const { start, end } = log.offsets(topic, partition);
    const position = log.committed(consumerGroupId, topic, partition) ?? (settings.startingPosition === 'LATEST' ? end : start);
    return { partition, key: partitionKey(topic, partition), position, resumeAfter: 0, failures: undefined, handedUpTo: position };
  });

  const commit = (state: PartitionState, offset: number, processed: boolean): void => {
    if (offset <= state.position) return;
    log.commit(consumerGroupId, topic, state.partition, offset);
    if (processed) stats.committedRecords += offset - state.position;
    state.position = offset;
  };

  // Up to batchSize records of the poller's partitions, within the batching window; undefined once stopping.
  const gather = async (owned: readonly PartitionState[], turn: number): Promise<Slice[] | undefined> => {
    let windowStart: number | undefined;
    while (!stopping.signal.aborted) {
      const now = performance.now();
      const slices: Slice[] = [];
      let count = 0;
      for (let i = 0; i < owned.length && count < settings.batchSize; i += 1) {
        const state = owned[(turn + i) % owned.length]!;
        if (state.resumeAfter > now) continue;
        const records = log.read(topic, state.partition, state.position, settings.batchSize - count);
        if (records.length === 0) continue;
        // Retention may have removed records the group never read; Kafka then starts at the oldest kept.
        state.position = Math.max(state.position, records[0]!.offset);
        slices.push({ state, records });
        count += records.length;
      }
      if (count > 0) {
        windowStart ??= now;
        const left = windowStart + settings.maxBatchingWindowMs - now;
        if (count >= settings.batchSize || left <= 0) return slices;
        await log.waitForRecords(topic, left, stopping.signal);
        continue;
      }
      windowStart = undefined;
      const paused = owned.filter((state) => state.resumeAfter > now).map((state) => state.resumeAfter - now);
      await log.waitForRecords(topic, paused.length > 0 ? Math.min(...paused) : IDLE_WAIT_MS, stopping.signal);
    }
    return undefined;
  };

  const invokeOnce = async (event: KafkaEvent): Promise<{ requestId: string; result: KafkaBatchResult }> => {
    const context = lambdaContext({ functionName: settings.functionName, timeoutMs: settings.functionTimeoutMs, region: log.region, accountId: log.accountId });
    stats.invocations += 1;
    const invocation = await invokeWithTimeout(handler, event, context, settings.functionTimeoutMs);
    return { requestId: context.awsRequestId, result: kafkaBatchResult(invocation, event, settings.reportBatchItemFailures) };
  };

  const countResult = (result: KafkaBatchResult): void => {
    if (result.outcome === 'partial') stats.partialBatches += 1;
    if (result.outcome !== 'failed') return;
    if (result.reason === 'error') stats.errors += 1;
    else if (result.reason === 'timeout') stats.timeouts += 1;
    else if (result.reason === 'invalid-response') stats.invalidResponses += 1;
    else stats.lostResponses += 1;
  };

  // Commits what the result acknowledges, counts the failures of each failing position, and gives up those past the limit.
  const settle = async (slices: readonly Slice[], result: KafkaBatchResult, requestId: string): Promise<number> => {
    const givingUp: { state: PartitionState; records: readonly LogRecord[]; count: number }[] = [];
    for (const { state, records } of slices) {
      const first = records[0]!.offset;
      const last = records[records.length - 1]!.offset;
      const failedAt = result.outcome === 'failed' ? first : result.outcome === 'partial' ? result.resumeAt.get(state.key) : undefined;
      if (failedAt === undefined) {
        commit(state, last + 1, true);
        state.failures = undefined;
        continue;
      }
      commit(state, failedAt, true);
      const count = state.failures?.offset === failedAt ? state.failures.count + 1 : 1;
      state.failures = { offset: failedAt, count };
      if (retryLimit >= 0 && count > retryLimit) {
        givingUp.push({ state, records: result.outcome === 'failed' ? records : records.filter((record) => record.offset === failedAt), count });
      } else {
        state.resumeAfter = performance.now() + settings.retryDelayMs;
      }
    }
    if (givingUp.length === 0) return 0;

    const discarded: DiscardedRecords = {
      condition: 'RetryAttemptsExhausted',
      records: givingUp.flatMap((part) => part.records),
      requestId,
      approximateInvokeCount: Math.max(...givingUp.map((part) => part.count)),
      functionError: result.outcome === 'failed' && result.reason !== 'invalid-response',
      at: Date.now(),
    };
    try {
      if (destination !== undefined) await deliverDiscarded(destination, discarded, { log, origin, fn });
    } catch (error) {
      // Kept, not lost: the partition is retried and given up again, until the destination takes the records.
      stats.destinationFailures += 1;
      quietly(() => settings.onError(error, 'destination'), undefined);
      for (const { state } of givingUp) state.resumeAfter = performance.now() + settings.retryDelayMs;
      return 0;
    }
    discardedRecords.push(discarded);
    stats.discarded += discarded.records.length;
    for (const { state, records } of givingUp) {
      commit(state, records[records.length - 1]!.offset + 1, false);
      state.failures = undefined;
    }
    return discarded.records.length;
  };

  const runBatch = async (poller: number, slices: readonly Slice[]): Promise<void> => {
    const started = performance.now();
    const records = slices.flatMap((slice) => slice.records);
    const attempt = 1 + Math.max(0, ...slices.map(({ state, records: part }) => (state.failures?.offset === part[0]!.offset ? state.failures.count : 0)));
    const event = toKafkaEvent(records, origin);
    const view: KafkaBatchView = { records: Object.values(event.records).flat(), attempt };
    const twice = quietly(() => settings.faults.deliverTwice?.(view) ?? false, false);
    const lose = quietly(() => settings.faults.loseResponse?.(view) ?? false, false);

    for (const { state, records: part } of slices) {
      stats.redelivered += part.filter((record) => record.offset < state.handedUpTo).length;
      state.handedUpTo = Math.max(state.handedUpTo, part[part.length - 1]!.offset + 1);
    }
    stats.records += records.length * (twice ? 2 : 1);
    if (twice) {
      stats.redelivered += records.length;
      stats.doubleDeliveries += 1;
    }
    // Each invocation gets its own copy of the event, as each gets its own JSON.
    const outcomes = await Promise.all(twice ? [invokeOnce(event), invokeOnce(toKafkaEvent(records, origin))] : [invokeOnce(event)]);
    const decisive = outcomes[outcomes.length - 1]!;
    if (twice && outcomes[0]!.result.outcome !== 'failed') stats.fencedCommits += 1;
    const result: KafkaBatchResult = lose ? { outcome: 'failed', reason: 'lost-response', detail: 'the invocation\'s response never reached the poller' } : decisive.result;
    countResult(result);
    const discarded = await settle(slices, result, decisive.requestId);

    const committed = Object.fromEntries(slices.map(({ state }) => [state.key, state.position]));
    quietly(() => settings.onBatch({ poller, requestId: decisive.requestId, event, attempt, result, deliveredTwice: twice, committed, discarded, durationMs: performance.now() - started }), undefined);
  };

  const poll = async (poller: number): Promise<void> => {
    const owned = states.filter((state) => state.partition % settings.pollers === poller);
    let turn = 0;
    while (owned.length > 0 && !stopping.signal.aborted) {
      const slices = await gather(owned, turn);
      turn = (turn + 1) % owned.length;
      if (slices !== undefined) await runBatch(poller, slices);
      // A handler that answers at once would otherwise keep the loop in microtasks and starve timers and I/O.
      await nextTurn();
    }
  };

  const loops = Array.from({ length: settings.pollers }, (_, poller) => poll(poller));
  return {
    stats,
    consumerGroupId,
    discarded: discardedRecords,
    committedOffsets() {
      const offsets: Record<string, number> = {};
      for (const state of states) {
        const offset = log.committed(consumerGroupId, topic, state.partition);
        if (offset !== undefined) offsets[state.key] = offset;
      }
      return offsets;
    },
    lag() {
      return states.reduce((sum, state) => {
        const { start, end } = log.offsets(topic, state.partition);
        return sum + Math.max(0, end - Math.max(start, state.position));
      }, 0);
    },
    async stop() {
      stopping.abort();
      await Promise.all(loops);
    },
  };
}
