import type { SQSRecord } from 'aws-lambda';

/** How an invocation ended, before its response is read. */
export type Invocation =
  | { readonly kind: 'returned'; readonly value: unknown }
  | { readonly kind: 'threw'; readonly error: unknown }
  | { readonly kind: 'timed-out' };

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
  if (typeof response !== 'object' || Array.isArray(response)) return invalid(`the response is not an object: ${JSON.stringify(response)}`);
  const failures = (response as Record<string, unknown>)['batchItemFailures'];
  if (failures === undefined || failures === null) return { outcome: 'succeeded' };
  if (!Array.isArray(failures)) return invalid('batchItemFailures is not a list');
  const ids = new Set(records.map((record) => record.messageId));
  const failedIds = new Set<string>();
  for (const failure of failures as unknown[]) {
    const id = typeof failure === 'object' && failure !== null ? (failure as Record<string, unknown>)['itemIdentifier'] : undefined;
    if (typeof id !== 'string' || id === '') return invalid(`a batchItemFailures entry has no itemIdentifier: ${JSON.stringify(failure)}`);
    if (!ids.has(id)) return invalid(`itemIdentifier ${id} is not a message of the batch`);
    failedIds.add(id);
  }
  return failedIds.size === 0 ? { outcome: 'succeeded' } : { outcome: 'partial', failedIds: [...failedIds] };
}
