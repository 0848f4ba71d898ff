import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import { resolveOptions } from '../options.js';
import type { KafkaBatchResponse, KafkaEvent } from '../kafka/kafka-event.js';
import { runKafkaBatch, type KafkaInboxOptions } from '../kafka/process-kafka-batch.js';
import { batchMiddleware } from './batch-middleware.js';

/**
 * The inbox as a middy middleware (middy 6 or 7) for an Amazon MSK or self-managed Kafka event source: it
 * processes the batch in `before` and sets the partial batch response in `after`, so `middy()`
 * needs no handler. Use it last, after Powertools' `injectLambdaContext` and `logMetrics`.
 *
 * @example
 * ```ts
 * import middy from '@middy/core';
 * import { sql } from 'sqs-inbox';
 * import { dataApiDatabaseFromEnv } from 'sqs-inbox/data-api';
 * import { kafkaInbox } from 'sqs-inbox/middleware';
 *
 * export const handler = middy().use(kafkaInbox<{ orderId: string }>({
 *   consumer: 'ship-orders',
 *   db: dataApiDatabaseFromEnv(),
 *   handle: async (order, { tx }) => {
 *     await tx.query(sql`UPDATE orders SET status = 'shipped' WHERE order_id = ${sql.uuid(order.orderId)}`);
 *   },
 * }));
 * ```
 */
export function kafkaInbox<T, K extends string = string>(options: KafkaInboxOptions<T, K>): MiddlewareObj<KafkaEvent, KafkaBatchResponse, Error, Context> {
  const resolved = resolveOptions(options);
  return batchMiddleware((event: KafkaEvent, context) => runKafkaBatch(event, context, resolved));
}
