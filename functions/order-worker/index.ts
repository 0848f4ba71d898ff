import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import { inbox, kafkaInbox } from '../inbox/middleware/index.js';
import { dataApiDatabaseFromEnv } from '../inbox/data-api/index.js';
import { kafkaRecordPaymentOptions, recordPaymentOptions } from './record-payment.js';
import { kafkaShipOrderOptions, shipOrderOptions } from './ship-order.js';

const logger = new Logger();
const metrics = new Metrics();
const db = dataApiDatabaseFromEnv();

/**
 * The order worker's Lambda handler: ships orders from a FIFO queue, one Data API call a message.
 *
 * @example
 * ```ts
 * // lib/: new InboxConsumer(this, 'Orders', { cluster, entry: 'functions/order-worker/index.ts', handler: 'handler' })
 * ```
 */
export const handler = middy()
  .use(injectLambdaContext(logger))
  .use(logMetrics(metrics))
  .use(inbox(shipOrderOptions(db, { logger, metrics })));

/**
 * The payment handler: the transaction-mode example, two tables in the claim's transaction.
 *
 * @example
 * ```ts
 * // lib/: new InboxConsumer(this, 'Payments', { cluster, entry: 'functions/order-worker/index.ts', handler: 'paymentHandler' })
 * ```
 */
export const paymentHandler = middy()
  .use(injectLambdaContext(logger))
  .use(logMetrics(metrics))
  .use(inbox(recordPaymentOptions(db, { logger, metrics })));

/**
 * The shipping example on a Kafka topic (Amazon MSK or self-managed), for an InboxKafkaConsumer.
 *
 * @example
 * ```ts
 * // lib/: new InboxKafkaConsumer(this, 'ShipOrders', { cluster, entry: 'functions/order-worker/index.ts', handler: 'kafkaHandler', source, topic: 'orders', topicRetention })
 * ```
 */
export const kafkaHandler = middy()
  .use(injectLambdaContext(logger))
  .use(logMetrics(metrics))
  .use(kafkaInbox(kafkaShipOrderOptions(db, { logger, metrics })));

/**
 * The payment example on a Kafka topic: two tables in the claim's transaction.
 *
 * @example
 * ```ts
 * // lib/: new InboxKafkaConsumer(this, 'Payments', { cluster, entry: 'functions/order-worker/index.ts', handler: 'kafkaPaymentHandler', source, topic: 'payments', topicRetention })
 * ```
 */
export const kafkaPaymentHandler = middy()
  .use(injectLambdaContext(logger))
  .use(logMetrics(metrics))
  .use(kafkaInbox(kafkaRecordPaymentOptions(db, { logger, metrics })));
