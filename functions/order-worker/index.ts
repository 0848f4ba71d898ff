import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { inbox, kafkaInbox } from '../inbox/middleware/index.js';
import { dataApiDatabaseFromEnv } from '../inbox/data-api/index.js';
import { outboxTargetsFromEnv } from '../inbox/outbox/index.js';
import { kafkaRecordPaymentOptions, recordPaymentOptions } from './record-payment.js';
import { kafkaShipOrderOptions, shipOrderOptions, shipOrderOutbox } from './ship-order.js';

const logger = new Logger();
const metrics = new Metrics();
const db = dataApiDatabaseFromEnv();
// Each handler is the consumer its construct deployed it as (INBOX_CONSUMER, the construct's serviceName),
// the consumer option's default: the builders' own names are for the demo and the tests.
const deployed = { consumer: undefined };

/** The shipping handler, with its outbox to the targets the stack put in INBOX_OUTBOX_TARGETS. */
function shippingHandler() {
  return middy()
    .use(injectLambdaContext(logger))
    .use(logMetrics(metrics))
    .use(inbox(shipOrderOptions(db, { ...deployed, logger, metrics, outbox: shipOrderOutbox(outboxTargetsFromEnv()) })));
}

// Made at the first invocation: the other handlers of this file deploy without outbox targets, and a
// shipping function without them fails its invocations (InboxConfigError naming the variable), so
// the messages return to the queue and the function errors alarm, instead of shipping unannounced.
let shipping: ReturnType<typeof shippingHandler> | undefined;

/**
 * The order worker's Lambda handler: ships orders from a FIFO queue, one Data API call a message,
 * and tells the shipment-notices queue through its outbox (an OrderShipped written in the same
 * statement, sent after the commit; the relay sends what is left). The targets come from
 * INBOX_OUTBOX_TARGETS, which the InboxConsumer's `outbox` sets.
 *
 * @example
 * ```ts
 * // lib/: new InboxConsumer(this, 'Orders', { database, serviceName: 'ship-order', entry: 'functions/order-worker/index.ts', outbox: { targets: { shipmentNotices: queue } } })
 * ```
 */
export const handler = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => (shipping ??= shippingHandler())(event, context);

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
  .use(inbox(recordPaymentOptions(db, { ...deployed, logger, metrics })));

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
  .use(kafkaInbox(kafkaShipOrderOptions(db, { ...deployed, logger, metrics })));

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
  .use(kafkaInbox(kafkaRecordPaymentOptions(db, { ...deployed, logger, metrics })));
