import type { MiddlewareObj, Request } from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { resolveOptions, type InboxOptions } from './options.js';
import { runBatch } from './process-batch.js';

type InboxRequest = Request<SQSEvent, SQSBatchResponse, Error, Context>;

/**
 * The inbox as a middy 6 middleware: it processes the batch in `before` and sets the partial batch
 * response in `after`, over whatever the handler returned, so `middy()` needs no handler. It returns
 * no early response, because middy 6 skips every `after` hook after one: used last, after
 * Powertools' `injectLambdaContext` and `logMetrics`, their hooks run (metrics are flushed) and the
 * response reaches Lambda. Options are checked once, when the middleware is made.
 *
 * @example
 * ```ts
 * import middy from '@middy/core';
 * import { Logger } from '@aws-lambda-powertools/logger';
 * import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
 * import { Metrics } from '@aws-lambda-powertools/metrics';
 * import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
 * import { dataApiDatabaseFromEnv, inbox, sql } from './inbox/index.js';
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
export function inbox<T>(options: InboxOptions<T>): MiddlewareObj<SQSEvent, SQSBatchResponse, Error, Context> {
  const resolved = resolveOptions(options);
  const responses = new WeakMap<InboxRequest, SQSBatchResponse>();
  const inboxBefore = async (request: InboxRequest): Promise<void> => {
    responses.set(request, await runBatch(request.event, request.context, resolved));
  };
  const inboxAfter = async (request: InboxRequest): Promise<void> => {
    const response = responses.get(request);
    if (response) request.response = response;
  };
  return { before: inboxBefore, after: inboxAfter };
}
