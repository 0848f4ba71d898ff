import { setImmediate as nextTurn } from 'node:timers/promises';
import { kafkaBatchRunner } from './kafka-batch-runner.js';
import { batchGatherer } from './kafka-batch-gatherer.js';
import type { KafkaEventSourceStats, RunningKafkaEventSource, StartKafkaEventSourceOptions } from './kafka-event-source-types.js';
import { kafkaSettings } from './kafka-settings.js';
import type { DiscardedRecords } from './on-failure-destination.js';
import { partitionStates } from './partition-state.js';

export type { KafkaBatchReport, KafkaEventSourceStats, RunningKafkaEventSource, StartKafkaEventSourceOptions } from './kafka-event-source-types.js';

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
  const settings = kafkaSettings(options);
  const { log, topic, consumerGroupId } = settings;
  const stats: KafkaEventSourceStats = {
    invocations: 0, records: 0, redelivered: 0, committedRecords: 0, discarded: 0, errors: 0, timeouts: 0,
    invalidResponses: 0, lostResponses: 0, partialBatches: 0, doubleDeliveries: 0, fencedCommits: 0, destinationFailures: 0,
  };
  const discarded: DiscardedRecords[] = [];
  const stopping = new AbortController();
  const states = partitionStates(settings);
  const gather = batchGatherer(settings, stopping.signal);
  const runBatch = kafkaBatchRunner(settings, stats, discarded);

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
    discarded,
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
