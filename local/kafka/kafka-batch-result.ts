import type { Invocation } from '../event-source/index.js';
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
  if (invocation.kind === 'threw') {
    const detail = invocation.error instanceof Error ? `${invocation.error.name}: ${invocation.error.message}` : String(invocation.error);
    return { outcome: 'failed', reason: 'error', detail, error: invocation.error };
  }
  if (invocation.kind === 'timed-out') return { outcome: 'failed', reason: 'timeout', detail: 'Task timed out' };
  if (!reportBatchItemFailures) return { outcome: 'succeeded' };

  let response: unknown;
  try {
    // Lambda hands the event source the response as JSON.
    const text = JSON.stringify(invocation.value);
    response = text === undefined ? null : JSON.parse(text);
  } catch (error) {
    return invalid(`the response is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (response === null) return { outcome: 'succeeded' };
  if (!isObject(response)) return invalid(`the response is not an object: ${JSON.stringify(response)}`);
  const failures = response['batchItemFailures'];
  if (failures === undefined || failures === null) return { outcome: 'succeeded' };
  if (!Array.isArray(failures)) return invalid('batchItemFailures is not a list');

  const offsets = new Map(Object.entries(event.records).map(([key, records]) => [key, new Set(records.map((record) => record.offset))]));
  const resumeAt = new Map<string, number>();
  for (const failure of failures as unknown[]) {
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
