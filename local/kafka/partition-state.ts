import { partitionKey } from './kafka-event.js';
import type { KafkaEventSourceStats } from './kafka-event-source-types.js';
import type { LogRecord } from './kafka-log.js';
import type { KafkaSettings } from './kafka-settings.js';

/** Where the event source is in one partition of its topic. */
export interface PartitionState {
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

/** The records of one partition in a batch, in offset order. */
export interface Slice {
  readonly state: PartitionState;
  readonly records: readonly LogRecord[];
}

/**
 * Each partition of the topic, starting at the group's committed offset, or where
 * `startingPosition` says for a partition without one.
 *
 * @example
 * ```ts
 * partitionStates(settings)[0]?.position // 0 on a fresh group with TRIM_HORIZON
 * ```
 */
export function partitionStates({ log, topic, consumerGroupId, startingPosition }: KafkaSettings): PartitionState[] {
  return Array.from({ length: log.partitions(topic) }, (_, partition) => {
    const { start, end } = log.offsets(topic, partition);
    const position = log.committed(consumerGroupId, topic, partition) ?? (startingPosition === 'LATEST' ? end : start);
    return { partition, key: partitionKey(topic, partition), position, resumeAfter: 0, failures: undefined, handedUpTo: position };
  });
}

/**
 * Commits the group's offset of a partition, if it moves forward, counting the records passed as
 * processed unless they were given up.
 *
 * @example
 * ```ts
 * commitOffset(settings, stats, state, 10, true);
 * ```
 */
export function commitOffset({ log, topic, consumerGroupId }: KafkaSettings, stats: KafkaEventSourceStats, state: PartitionState, offset: number, processed: boolean): void {
  if (offset <= state.position) return;
  log.commit(consumerGroupId, topic, state.partition, offset);
  if (processed) stats.committedRecords += offset - state.position;
  state.position = offset;
}
