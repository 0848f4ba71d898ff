import type { SQSRecord } from 'aws-lambda';
import { readBatchResponse, type Invocation } from '../lambda-invocation.js';

export type { Invocation } from '../lambda-invocation.js';

/** What the poller does with a batch after the invocation. */
export type BatchResult =
  | { readonly outcome: 'succeeded' }
  | { readonly outcome: 'partial'; readonly failedIds: readonly string[] }
  | { readonly outcome: 'failed'; readonly reason: 'error' | 'timeout' | 'invalid-response'; readonly detail: string; readonly error?: unknown };

function invalid(detail: string): BatchResult {
  return { outcome: 'failed', reason: 'invalid-response', detail };
}

/**
 * Reads an invocation as Lambda's SQS event source does. A thrown error or a timeout fails the
 * whole batch. With `reportBatchItemFailures`, the response (as JSON) names the failures: nothing,
 * `{}`, or an empty or null `batchItemFailures` is complete success; a list of `{ itemIdentifier }`
 * naming records of the batch fails exactly those; anything else (not an object, a list that is
 * not a list, an identifier missing, empty or not in the batch) fails the whole batch. Without
 * `reportBatchItemFailures` the response is ignored.
 *
 * @example
 * ```ts
 * batchResult({ kind: 'returned', value: { batchItemFailures: [{ itemIdentifier: '' }] } }, records, true).outcome // 'failed'
 * ```
 */
export function batchResult(invocation: Invocation, records: readonly SQSRecord[], reportBatchItemFailures: boolean): BatchResult {
  const response = readBatchResponse(invocation, reportBatchItemFailures);
  if (response.verdict === 'failed') return { outcome: 'failed', reason: response.reason, detail: response.detail, error: response.error };
  if (response.verdict === 'succeeded') return { outcome: 'succeeded' };
  const ids = new Set(records.map((record) => record.messageId));
  const failedIds = new Set<string>();
  for (const failure of response.failures) {
    const id = typeof failure === 'object' && failure !== null ? (failure as Record<string, unknown>)['itemIdentifier'] : undefined;
    if (typeof id !== 'string' || id === '') return invalid(`a batchItemFailures entry has no itemIdentifier: ${JSON.stringify(failure)}`);
    if (!ids.has(id)) return invalid(`itemIdentifier ${id} is not a message of the batch`);
    failedIds.add(id);
  }
  return failedIds.size === 0 ? { outcome: 'succeeded' } : { outcome: 'partial', failedIds: [...failedIds] };
}
