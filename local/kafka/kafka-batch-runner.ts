import { lambdaContext } from '../event-source/index.js';
import { invokeWithTimeout } from '../lambda-invocation.js';
import { quietly } from '../quietly.js';
import { batchSettlement } from './batch-settlement.js';
import { kafkaBatchResult, type KafkaBatchResult } from './kafka-batch-result.js';
import { toKafkaEvent, type KafkaEvent } from './kafka-event.js';
import type { KafkaBatchView, KafkaEventSourceStats } from './kafka-event-source-types.js';
import type { KafkaSettings } from './kafka-settings.js';
import type { DiscardedRecords } from './on-failure-destination.js';
import type { Slice } from './partition-state.js';

function countResult(stats: KafkaEventSourceStats, result: KafkaBatchResult): void {
  if (result.outcome === 'partial') stats.partialBatches += 1;
  if (result.outcome !== 'failed') return;
  if (result.reason === 'error') stats.errors += 1;
  else if (result.reason === 'timeout') stats.timeouts += 1;
  else if (result.reason === 'invalid-response') stats.invalidResponses += 1;
  else stats.lostResponses += 1;
}

/** Counts the records handed out again: retries, redeliveries after a failure, the copy of a double delivery. */
function countHandedOut(stats: KafkaEventSourceStats, slices: readonly Slice[], twice: boolean): void {
  let records = 0;
  for (const { state, records: part } of slices) {
    stats.redelivered += part.filter((record) => record.offset < state.handedUpTo).length;
    state.handedUpTo = Math.max(state.handedUpTo, part[part.length - 1]!.offset + 1);
    records += part.length;
  }
  stats.records += records * (twice ? 2 : 1);
  if (twice) {
    stats.redelivered += records;
    stats.doubleDeliveries += 1;
  }
}

/**
 * How a poller runs one batch: the event and the faults asked of it, one invocation (two at once
 * on a double delivery, the second one's outcome counting and the first one's commit fenced), the
 * result read as Lambda reads it, the partitions settled, and `onBatch` told.
 *
 * @example
 * ```ts
 * const runBatch = kafkaBatchRunner(settings, stats, discarded);
 * await runBatch(0, slices);
 * ```
 */
export function kafkaBatchRunner(settings: KafkaSettings, stats: KafkaEventSourceStats, discarded: DiscardedRecords[]): (poller: number, slices: readonly Slice[]) => Promise<void> {
  const settle = batchSettlement(settings, stats, discarded);
  const { log, origin } = settings;

  const invokeOnce = async (event: KafkaEvent): Promise<{ requestId: string; result: KafkaBatchResult }> => {
    const context = lambdaContext({ functionName: settings.functionName, timeoutMs: settings.functionTimeoutMs, region: log.region, accountId: log.accountId });
    stats.invocations += 1;
    const invocation = await invokeWithTimeout(settings.handler, event, context, settings.functionTimeoutMs);
    return { requestId: context.awsRequestId, result: kafkaBatchResult(invocation, event, settings.reportBatchItemFailures) };
  };

  return async (poller, slices) => {
    const started = performance.now();
    const records = slices.flatMap((slice) => slice.records);
    const attempt = 1 + Math.max(0, ...slices.map(({ state, records: part }) => (state.failures?.offset === part[0]!.offset ? state.failures.count : 0)));
    const event = toKafkaEvent(records, origin);
    const view: KafkaBatchView = { records: Object.values(event.records).flat(), attempt };
    const twice = quietly(() => settings.faults.deliverTwice?.(view) ?? false, false);
    const lose = quietly(() => settings.faults.loseResponse?.(view) ?? false, false);
    countHandedOut(stats, slices, twice);

    // Each invocation gets its own copy of the event, as each gets its own JSON.
    const outcomes = await Promise.all(twice ? [invokeOnce(event), invokeOnce(toKafkaEvent(records, origin))] : [invokeOnce(event)]);
    const decisive = outcomes[outcomes.length - 1]!;
    if (twice && outcomes[0]!.result.outcome !== 'failed') stats.fencedCommits += 1;
    const result: KafkaBatchResult = lose ? { outcome: 'failed', reason: 'lost-response', detail: 'the invocation\'s response never reached the poller' } : decisive.result;
    countResult(stats, result);
    const givenUp = await settle(slices, result, decisive.requestId);

    const committed = Object.fromEntries(slices.map(({ state }) => [state.key, state.position]));
    quietly(() => settings.onBatch({ poller, requestId: decisive.requestId, event, attempt, result, deliveredTwice: twice, committed, discarded: givenUp, durationMs: performance.now() - started }));
  };
}
