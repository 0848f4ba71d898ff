const THROTTLING = /Throttl|RequestThrottled|OverLimit|SlowDown/;

/**
 * Whether an AWS SDK call that threw may succeed when made again: the SDK marked it retryable, the
 * service's side failed, it was throttled, or no answer came back at all (a network error, an
 * answer lost on its way). The producer and the outbox's publishers both send again on it.
 *
 * @example
 * ```ts
 * isRetryableAwsError(new SQSServiceException({ name: 'InternalError', $fault: 'server', $metadata: {} })) // true
 * ```
 */
export function isRetryableAwsError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return true;
  const details = error as { $fault?: string; $retryable?: unknown; $metadata?: { httpStatusCode?: number }; name?: string };
  if (details.$retryable !== undefined || details.$fault === 'server') return true;
  if (THROTTLING.test(details.name ?? '')) return true;
  // No HTTP status: the call never got an answer (a network error), so it may succeed again.
  return details.$metadata?.httpStatusCode === undefined;
}

/**
 * An error as a code (its name) and its message, for a failure report.
 *
 * @example
 * ```ts
 * awsErrorSummary(new Error('boom')) // { code: 'Error', message: 'boom' }
 * ```
 */
export function awsErrorSummary(error: unknown): { code: string; message: string } {
  if (error instanceof Error) return { code: error.name, message: error.message };
  return { code: 'Error', message: String(error) };
}
