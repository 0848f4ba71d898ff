import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { resolveOptions, type InboxOptions, type ResolvedOptions } from '../options.js';
import { isRedelivered } from '../outcome.js';
import { runBatch } from '../pipeline/run-batch.js';
import { sqsSource } from './sqs-source.js';

/**
 * `processBatch` with options already resolved, for the middleware that resolves them once.
 *
 * @example
 * ```ts
 * const resolved = resolveOptions(options);
 * export const handler = (event: SQSEvent, context: Context) => runSqsBatch(event, context, resolved);
 * ```
 */
export async function runSqsBatch<T>(event: SQSEvent, context: Context, options: ResolvedOptions<T, SQSRecord>): Promise<SQSBatchResponse> {
  const settled = await runBatch(event, context, options, sqsSource);
  return {
    batchItemFailures: settled
      .filter(({ outcome }) => isRedelivered(outcome.kind))
      .map(({ record }) => ({ itemIdentifier: record.messageId })),
  };
}

/**
 * Processes an SQS batch through the inbox: each record is claimed and applied in one transaction
 * (or one guarded statement), and the response lists only the records whose effect did not commit,
 * so SQS redelivers those alone. Attach it with `reportBatchItemFailures` on the event source.
 *
 * @example
 * ```ts
 * import type { Context, SQSEvent } from 'aws-lambda';
 * import { processBatch, sql } from 'sqs-inbox';
 * import { dataApiDatabaseFromEnv } from 'sqs-inbox/data-api';
 *
 * const db = dataApiDatabaseFromEnv();
 * export const handler = (event: SQSEvent, context: Context) =>
 *   processBatch<{ orderId: string }>(event, context, {
 *     consumer: 'ship-orders',
 *     db,
 *     statement: (order) => sql`UPDATE orders SET status = 'shipped', version = version + 1 WHERE order_id = ${sql.uuid(order.orderId)}`,
 *   });
 * ```
 */
export async function processBatch<T, K extends string = string>(event: SQSEvent, context: Context, options: InboxOptions<T, SQSRecord, K>): Promise<SQSBatchResponse> {
  return runSqsBatch(event, context, resolveOptions(options));
}
