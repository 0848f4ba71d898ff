import type { KafkaBatchResult } from './kafka-batch-result.js';
import type { KafkaEvent, KafkaEventRecord } from './kafka-event.js';
import type { KafkaHandler } from './kafka-handler.js';
import type { KafkaLog } from './kafka-log.js';
import type { DiscardedRecords, KafkaOnFailureDestination } from './on-failure-destination.js';

/** What a fault hook of the event source is told about a batch about to be invoked. */
export interface KafkaBatchView {
  /** The records of the batch, as the event holds them, partition by partition. */
  readonly records: readonly KafkaEventRecord[];
  /**
   * Which attempt this is at the batch's failing position: 1 for a first delivery, 1 + the
   * failures so far when a partition of the batch is being retried from the same offset.
   */
  readonly attempt: number;
}

/**
 * Faults the Kafka event source injects on request, each a predicate asked once per batch; a hook
 * left out never fires. They model what happens to Lambda's Kafka poller now and then:
 * - `deliverTwice`: when true, the batch goes to two invocations at once, as when a consumer group
 *   rebalance moves its partitions to another poller while the first is still invoking: the new
 *   owner reads from the committed offset, so it gets the same records. The second invocation's
 *   outcome counts; the first one's commit is fenced (refused), as Kafka refuses a commit from a
 *   member of an older group generation.
 * - `loseResponse`: when true, the handler runs to its end but its answer never reaches the poller,
 *   as when the function's process dies after its work committed: the whole batch fails and is
 *   delivered again from its first offset.
 *
 * A crash inside the handler, at one of its database commits, is `crashingKafkaHandler`'s work.
 *
 * @example
 * ```ts
 * startKafkaEventSource({ log, topic: 'orders', handler, faults: { deliverTwice: (batch) => batch.attempt === 1 && Math.random() < 0.02 } });
 * ```
 */
export interface KafkaEventSourceFaults {
  readonly deliverTwice?: (batch: KafkaBatchView) => boolean;
  readonly loseResponse?: (batch: KafkaBatchView) => boolean;
}

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
