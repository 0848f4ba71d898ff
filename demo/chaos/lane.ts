import type { SQSClient } from '@aws-sdk/client-sqs';
import type pg from 'pg';
import type { Database } from '../../functions/inbox/index.js';
import { retry } from '../../functions/inbox/internal.js';
import type { SqsFaults } from '../../local/sqs/index.js';
import type { CrashPoint } from '../crashing-handler.js';
import { dataApiEnvironment, type LambdaEnvironment } from '../lambda-environment.js';
import { queueDepth } from '../local-stack.js';
import { lockOrders } from '../order-rows.js';
import type { Workload } from '../workload.js';
import type { LaneFacts } from './chaos-evidence.js';
import type { Timeline } from './timeline.js';

/** Faults a lane injected, counted as they fired. */
export interface LaneFaultCounts {
  crashesBeforeCommit: number;
  crashesAfterCommit: number;
  twins: number;
  lostDeletes: number;
  lostProducerAnswers: number;
  failedEntries: number;
  lostAcks: number;
  lostBatchAnswers: number;
}

/** What a lane holds now: messages waiting (visible or delayed) and in flight. */
export interface LaneDepth {
  readonly backlog: number;
  readonly inFlight: number;
}

/** A queue's depth as a lane reports it. */
export async function queueLaneDepth(client: SQSClient, queueUrl: string): Promise<LaneDepth> {
  const depth = await queueDepth(client, queueUrl);
  return { backlog: depth.visible + depth.delayed, inFlight: depth.inFlight };
}

/** A consumer of the run beside the others: its source, its worker, its producer. */
export interface Lane {
  readonly name: string;
  readonly workload: Workload;
  /** The SQS faults of its queue, for the one SQS emulator the SQS lanes share. */
  readonly sqsFaults?: SqsFaults;
  readonly faults: LaneFaultCounts;
  /** Sends the workload evenly over `windowMs`; resolves when all is sent. */
  produce(windowMs: number): Promise<void>;
  /** Messages waiting and in flight now. */
  depth(): Promise<LaneDepth>;
  /** Whether everything sent has left the queue (deleted, dead-lettered, consumed). */
  drained(): Promise<boolean>;
  /** Takes the stuck session's locks again (a restart of PostgreSQL ended it, the stuck job comes back). */
  relock(): Promise<void>;
  /** The causes end, as an operator fixes them: the stuck session, the lost deletes; then the DLQ is redriven. Resolves with the messages moved. */
  redrive(): Promise<number>;
  /** Stops the source and waits for its invocations. */
  stop(): Promise<void>;
  /** What the lane knows that the database does not (its DLQ is drained here). */
  facts(): Promise<LaneFacts>;
  /** Releases what is left: locks, clients. */
  close(): Promise<void>;
}

/** What every lane shares. */
export interface LaneContext {
  readonly pool: pg.Pool;
  readonly databaseUrl: string;
  /** The Data API emulator's endpoint: stable across its restart. */
  readonly dataApiEndpoint: string;
  readonly driver: 'data-api' | 'pg';
  /** The workers' database on the pg driver (one pool for every lane); on the Data API each environment has its own. */
  readonly db: Database;
  readonly timeline: Timeline;
  readonly crashRate: number;
  readonly deliverTwiceRate: number;
  readonly producerRetryRate: number;
  readonly maxReceiveCount: number;
}

/**
 * The database's name in a URL.
 *
 * @example
 * ```ts
 * databaseNameOf('postgres://postgres@127.0.0.1:5432/inbox_chaos_1') // 'inbox_chaos_1'
 * ```
 */
export const databaseNameOf = (url: string) => decodeURIComponent(new URL(url).pathname.slice(1));

/**
 * A factory of Lambda execution environments for a lane on the Data API driver (each with its
 * own client, killed with its process), or undefined on pg; the environments made are kept to close.
 *
 * @example
 * ```ts
 * const environments = laneEnvironments(context); // crashingHandler({ environment: environments.make, ... })
 * ```
 */
export function laneEnvironments(context: LaneContext): { make: (() => LambdaEnvironment) | undefined; close(): Promise<void> } {
  const made: LambdaEnvironment[] = [];
  return {
    make: context.driver === 'pg' ? undefined : () => {
      const environment = dataApiEnvironment(context.dataApiEndpoint, databaseNameOf(context.databaseUrl));
      made.push(environment);
      return environment;
    },
    close: async () => {
      await Promise.all(made.map((environment) => environment.close()));
    },
  };
}

/**
 * The stuck session of a lane: holds its stuck orders' rows locked, and takes them again after a
 * restart of the database ended it.
 *
 * @example
 * ```ts
 * const stuck = stuckSession(pool, ['0190...']); await stuck.lock(); ... await stuck.release();
 * ```
 */
export function stuckSession(pool: pg.Pool, orderIds: readonly string[]): { lock(): Promise<void>; release(): Promise<void> } {
  let release: (() => Promise<void>) | undefined;
  const end = async () => {
    const ending = release;
    release = undefined;
    // After a restart its session is gone already: nothing to roll back.
    await ending?.().catch(() => undefined);
  };
  const take = async () => {
    if (orderIds.length === 0) return;
    await end();
    // Just after a restart the pool may hand out a connection the restart ended: try a few times.
    release = await retry(() => lockOrders(pool, orderIds), { attempts: 10, backoff: { baseMs: 200, maxMs: 2000, jitter: 'none' }, retryable: () => true });
  };
  // One after another: a relock after a restart while the first lock (or another relock) is still
  // being taken would otherwise wait for ever on the row locks of the session it overlaps.
  let queue: Promise<void> = Promise.resolve();
  const inTurn = (step: () => Promise<void>) => {
    const turn = queue.then(step);
    queue = turn.catch(() => undefined);
    return turn;
  };
  return { lock: () => inTurn(take), release: () => inTurn(end) };
}

/**
 * Sends `messages` in slices spread evenly over `windowMs`, each slice by `send`, as a producer
 * with a steady stream does.
 *
 * @example
 * ```ts
 * await paced(workload.messages, 60_000, 20, (part) => sendMessages(client, queueUrl, part).then(() => undefined));
 * ```
 */
export async function paced<T>(messages: readonly T[], windowMs: number, slice: number, send: (part: readonly T[]) => Promise<void>): Promise<void> {
  const started = performance.now();
  const slices = Math.ceil(messages.length / slice);
  for (let index = 0; index < slices; index += 1) {
    const due = started + (index * windowMs) / slices;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    await send(messages.slice(index * slice, (index + 1) * slice));
  }
}

/**
 * A new fault count, all zero.
 *
 * @example
 * ```ts
 * const faults = noFaults(); faults.twins += 1;
 * ```
 */
export const noFaults = (): LaneFaultCounts => ({
  crashesBeforeCommit: 0, crashesAfterCommit: 0, twins: 0, lostDeletes: 0, lostProducerAnswers: 0, failedEntries: 0, lostAcks: 0, lostBatchAnswers: 0,
});

/**
 * An `onCrash` for a lane's crashing handler: counts the crash by its point and marks it on the timeline.
 *
 * @example
 * ```ts
 * crashingHandler({ ..., onCrash: crashCounter('sqs-fifo', faults, timeline) });
 * ```
 */
export function crashCounter(lane: string, faults: LaneFaultCounts, timeline: Timeline): (point: CrashPoint) => void {
  return (point) => {
    if (point.when === 'before-commit') faults.crashesBeforeCommit += 1;
    else faults.crashesAfterCommit += 1;
    timeline.mark({ id: `crash-${lane}-${faults.crashesBeforeCommit + faults.crashesAfterCommit}`, kind: 'crash', atMs: timeline.now(), durationMs: 0, detail: point.when });
  };
}
