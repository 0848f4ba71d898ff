import { quietly } from '../quietly.js';
import type { KafkaBatchResult } from './kafka-batch-result.js';
import type { KafkaEventSourceStats } from './kafka-event-source-types.js';
import type { LogRecord } from './kafka-log.js';
import type { KafkaSettings } from './kafka-settings.js';
import { deliverDiscarded, type DiscardedRecords } from './on-failure-destination.js';
import { commitOffset, type PartitionState, type Slice } from './partition-state.js';

interface GivingUp {
  readonly state: PartitionState;
  readonly records: readonly LogRecord[];
  readonly count: number;
}

/**
 * How a batch's result settles its partitions: commits what it acknowledges, counts the failures of
 * each failing position, and gives up those past the retry limit, sending them to the on-failure
 * destination and moving past them once it took them. Answers the records given up.
 *
 * @example
 * ```ts
 * const settle = batchSettlement(settings, stats, discarded);
 * const givenUp = await settle(slices, result, requestId);
 * ```
 */
export function batchSettlement(settings: KafkaSettings, stats: KafkaEventSourceStats, discardedRecords: DiscardedRecords[]) {
  const commit = (state: PartitionState, offset: number, processed: boolean) => commitOffset(settings, stats, state, offset, processed);

  const failingPositions = (slices: readonly Slice[], result: KafkaBatchResult): GivingUp[] => {
    const givingUp: GivingUp[] = [];
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
      if (settings.retryLimit >= 0 && count > settings.retryLimit) {
        givingUp.push({ state, records: result.outcome === 'failed' ? records : records.filter((record) => record.offset === failedAt), count });
      } else {
        state.resumeAfter = performance.now() + settings.retryDelayMs;
      }
    }
    return givingUp;
  };

  const giveUp = async (givingUp: readonly GivingUp[], result: KafkaBatchResult, requestId: string): Promise<number> => {
    const discarded: DiscardedRecords = {
      condition: 'RetryAttemptsExhausted',
      records: givingUp.flatMap((part) => part.records),
      requestId,
      approximateInvokeCount: Math.max(...givingUp.map((part) => part.count)),
      functionError: result.outcome === 'failed' && result.reason !== 'invalid-response',
      at: Date.now(),
    };
    const destination = settings.onFailureDestination;
    try {
      if (destination !== undefined) await deliverDiscarded(destination, discarded, { log: settings.log, origin: settings.origin, fn: settings.fn });
    } catch (error) {
      // Kept, not lost: the partition is retried and given up again, until the destination takes the records.
      stats.destinationFailures += 1;
      quietly(() => settings.onError(error, 'destination'));
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

  return async (slices: readonly Slice[], result: KafkaBatchResult, requestId: string): Promise<number> => {
    const givingUp = failingPositions(slices, result);
    return givingUp.length === 0 ? 0 : giveUp(givingUp, result, requestId);
  };
}
