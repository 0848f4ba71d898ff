import type { KafkaEventRecord } from './kafka-event.js';

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
