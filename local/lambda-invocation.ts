import type { Context } from 'aws-lambda';

/** How an invocation ended, before its response is read. */
export type Invocation =
  | { readonly kind: 'returned'; readonly value: unknown }
  | { readonly kind: 'threw'; readonly error: unknown }
  | { readonly kind: 'timed-out' };

/**
 * Runs a handler as Lambda runs an invocation: its result, its error, or the timeout, whichever
 * comes first. A handler still running at the timeout is left to finish on its own, as the work a
 * killed function had already sent keeps going where it was sent.
 *
 * @example
 * ```ts
 * await invokeWithTimeout(async () => { throw new Error('down'); }, event, context, 1000) // { kind: 'threw', error }
 * ```
 */
export async function invokeWithTimeout<E>(handler: (event: E, context: Context) => unknown, event: E, context: Context, timeoutMs: number): Promise<Invocation> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Invocation>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'timed-out' }), timeoutMs);
  });
  const run = (async (): Promise<Invocation> => {
    try {
      return { kind: 'returned', value: await handler(event, context) };
    } catch (error) {
      return { kind: 'threw', error };
    }
  })();
  try {
    return await Promise.race([run, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** An invocation as every event source reads it before looking at the identifiers it names. */
export type BatchResponse =
  | { readonly verdict: 'succeeded' }
  | { readonly verdict: 'failed'; readonly reason: 'error' | 'timeout' | 'invalid-response'; readonly detail: string; readonly error?: unknown }
  /** A list of `batchItemFailures` entries, not yet checked against the batch. */
  | { readonly verdict: 'named'; readonly failures: readonly unknown[] };

/**
 * What Lambda's event sources share in reading an invocation: a thrown error or a timeout fails
 * the whole batch; without ReportBatchItemFailures the answer is ignored; with it, the answer is
 * read as JSON, and nothing, null, `{}` or a null `batchItemFailures` is success, an answer that is
 * not an object or a `batchItemFailures` that is not a list fails the whole batch.
 *
 * @example
 * ```ts
 * readBatchResponse({ kind: 'returned', value: { batchItemFailures: [] } }, true) // { verdict: 'named', failures: [] }
 * ```
 */
export function readBatchResponse(invocation: Invocation, reportBatchItemFailures: boolean): BatchResponse {
  if (invocation.kind === 'threw') {
    const detail = invocation.error instanceof Error ? `${invocation.error.name}: ${invocation.error.message}` : String(invocation.error);
    return { verdict: 'failed', reason: 'error', detail, error: invocation.error };
  }
  if (invocation.kind === 'timed-out') return { verdict: 'failed', reason: 'timeout', detail: 'Task timed out' };
  if (!reportBatchItemFailures) return { verdict: 'succeeded' };
  const invalid = (detail: string): BatchResponse => ({ verdict: 'failed', reason: 'invalid-response', detail });
  let response: unknown;
  try {
    // Lambda hands the event source the response as JSON.
    const text = JSON.stringify(invocation.value);
    response = text === undefined ? null : JSON.parse(text);
  } catch (error) {
    return invalid(`the response is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (response === null) return { verdict: 'succeeded' };
  if (typeof response !== 'object' || Array.isArray(response)) return invalid(`the response is not an object: ${JSON.stringify(response)}`);
  const failures = (response as Record<string, unknown>)['batchItemFailures'];
  if (failures === undefined || failures === null) return { verdict: 'succeeded' };
  if (!Array.isArray(failures)) return invalid('batchItemFailures is not a list');
  return { verdict: 'named', failures };
}
