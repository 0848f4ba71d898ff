import type { KafkaSettings } from './kafka-settings.js';
import type { PartitionState, Slice } from './partition-state.js';

const IDLE_WAIT_MS = 1000;

/**
 * A poller's fetch: up to `batchSize` records of the partitions it owns, starting at `turn` so each
 * partition leads in its turn, gathered for up to the batching window; undefined once `stopping`.
 *
 * @example
 * ```ts
 * const gather = batchGatherer(settings, stopping.signal);
 * const slices = await gather(owned, 0);
 * ```
 */
export function batchGatherer(settings: KafkaSettings, stopping: AbortSignal): (owned: readonly PartitionState[], turn: number) => Promise<Slice[] | undefined> {
  const { log, topic, batchSize, maxBatchingWindowMs } = settings;
  return async (owned, turn) => {
    let windowStart: number | undefined;
    while (!stopping.aborted) {
      const now = performance.now();
      const slices: Slice[] = [];
      let count = 0;
      for (let i = 0; i < owned.length && count < batchSize; i += 1) {
        const state = owned[(turn + i) % owned.length]!;
        if (state.resumeAfter > now) continue;
        const records = log.read(topic, state.partition, state.position, batchSize - count);
        if (records.length === 0) continue;
        // Retention may have removed records the group never read; Kafka then starts at the oldest kept.
        state.position = Math.max(state.position, records[0]!.offset);
        slices.push({ state, records });
        count += records.length;
      }
      if (count > 0) {
        windowStart ??= now;
        const left = windowStart + maxBatchingWindowMs - now;
        if (count >= batchSize || left <= 0) return slices;
        await log.waitForRecords(topic, left, stopping);
        continue;
      }
      windowStart = undefined;
      const paused = owned.filter((state) => state.resumeAfter > now).map((state) => state.resumeAfter - now);
      await log.waitForRecords(topic, paused.length > 0 ? Math.min(...paused) : IDLE_WAIT_MS, stopping);
    }
    return undefined;
  };
}
