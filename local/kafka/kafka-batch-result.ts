import { readBatchResponse, type Invocation } from '../lambda-invocation.js';
import type { KafkaEvent } from './kafka-event.js';

/** What the poller does with a Kafka batch after the invocation. */
export type KafkaBatchResult =
  | { readonly outcome: 'succeeded' }
  /** Per `'<topic>-<partition>'` named in the response, the lowest failed offset: the partition resumes there. */
  | { readonly outcome: 'partial'; readonly resumeAt: ReadonlyMap<string, number> }
  | { readonly outcome: 'failed'; readonly reason: 'error' | 'timeout' | 'invalid-response' | 'lost-response'; readonly detail: string; readonly error?: unknown };

function invalid(detail: string): KafkaBatchResult {
  return { outcome: 'failed', reason: 'invalid-response', detail };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads an invocation as Lambda's Kafka event source does
 * (https://docs.aws.amazon.com/lambda/latest/dg/kafka-retry-configurations.html, "PartialBatchResponse";
 * https://docs.aws.amazon.com/lambda/latest/dg/with-msk-process.html). A thrown error or a timeout
 * fails the whole batch. With ReportBatchItemFailures the response, as JSON, names failures as
 * `{ itemIdentifier: { partition: '<topic>-<partition>', offset } }`: nothing, null, `{}` or an
 * empty or null list is success; "any invalid topic-partition_number or offset returned that was
 * not present in the invoked event" (here also a missing identifier, an offset that is not a whole
 * number, a list that is not a list) fails the whole batch. Valid failures make each named partition
 * resume from its lowest failed offset: records before it are done, as a committed Kafka offset
 * means, and the rest of that partition comes again (the rule Lambda documents for stream
 * checkpoints: "Lambda uses the record with the lowest sequence number as the checkpoint").
 * Partitions not named succeeded. Without ReportBatchItemFailures the response is ignored.
 *
 * @example
 * ```ts
 * kafkaBatchResult({ kind: 'returned', value: { batchItemFailures: [{ itemIdentifier: { partition: 'orders-0', offset: 7 } }] } }, event, true)
 * // { outcome: 'partial', resumeAt: Map { 'orders-0' => 7 } } when offset 7 of orders-0 is in the event
 * ```
 */
export function kafkaBatchResult(invocation: Invocation, event: KafkaEvent, reportBatchItemFailures: boolean): KafkaBatchResult {
  const response = readBatchResponse(invocation, reportBatchItemFailures);
  if (response.verdict === 'failed') return { outcome: 'failed', reason: response.reason, detail: response.detail, error: response.error };
  if (response.verdict === 'succeeded') return { outcome: 'succeeded' };
  const failures = response.failures;
  const offsets = new Map(Object.entries(event.records).map(([key, records]) => [key, new Set(records.map((record) => record.offset))]));
  const resumeAt = new Map<string, number>();
  for (const failure of failures) {
    const id = isObject(failure) ? failure['itemIdentifier'] : undefined;
    if (!isObject(id)) return invalid(`a batchItemFailures entry has no itemIdentifier object: ${JSON.stringify(failure)}`);
    const { partition, offset } = id;
    if (typeof partition !== 'string' || typeof offset !== 'number' || !Number.isSafeInteger(offset)) {
      return invalid(`an itemIdentifier needs a partition '<topic>-<partition>' and a whole-number offset: ${JSON.stringify(id)}`);
    }
    if (!offsets.get(partition)?.has(offset)) return invalid(`itemIdentifier ${JSON.stringify(id)} names no record of the batch`);
    resumeAt.set(partition, Math.min(offset, resumeAt.get(partition) ?? offset));
  }
  return resumeAt.size === 0 ? { outcome: 'succeeded' } : { outcome: 'partial', resumeAt };
}
