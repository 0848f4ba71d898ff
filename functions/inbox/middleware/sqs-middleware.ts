import type { MiddlewareObj } from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { resolveOptions, type InboxOptions } from '../options.js';
import { runSqsBatch } from '../sqs/process-sqs-batch.js';
import { batchMiddleware } from './batch-middleware.js';

/**
 * The inbox as a middy middleware (middy 6 or 7) for an SQS event source: it processes the batch in `before` and
 * sets the partial batch response in `after`, so `middy()` needs no handler. Use it last, after
 * Powertools' `injectLambdaContext` and `logMetrics`, so their hooks run and metrics are flushed.
 * Options are checked once, when the middleware is made.
 *
 * @example
 * ```ts
 * import middy from '@middy/core';
 * import { Logger } from '@aws-lambda-powertools/logger';
 * import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
 * import { Metrics } from '@aws-lambda-powertools/metrics';
 * import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
 * import { sql } from 'sqs-inbox';
 * import { dataApiDatabaseFromEnv } from 'sqs-inbox/data-api';
 * import { inbox } from 'sqs-inbox/middleware';
 *
 * const logger = new Logger();
 * const metrics = new Metrics({ namespace: 'orders' });
 * export const handler = middy()
 *   .use(injectLambdaContext(logger))
 *   .use(logMetrics(metrics))
 *   .use(inbox<{ orderId: string }>({
 *     consumer: 'ship-orders',
 *     db: dataApiDatabaseFromEnv(),
 *     logger,
 *     metrics,
 *     handle: async (order, { tx }) => {
 *       await tx.query(sql`UPDATE orders SET status = 'shipped' WHERE order_id = ${sql.uuid(order.orderId)}`);
 *     },
 *   }));
 * ```
 */
export function inbox<T, K extends string = string>(options: InboxOptions<T, SQSRecord, K>): MiddlewareObj<SQSEvent, SQSBatchResponse, Error, Context> {
  const resolved = resolveOptions(options);
  return batchMiddleware((event: SQSEvent, context) => runSqsBatch(event, context, resolved));
}
