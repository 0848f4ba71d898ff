import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import { inbox } from '../inbox/middleware/index.js';
import { dataApiDatabaseFromEnv } from '../inbox/data-api/index.js';
import { shipmentNoticeOptions } from './shipment-notice.js';

const logger = new Logger();
const metrics = new Metrics();

/**
 * The shipment-notice worker's Lambda handler: records a notice for each OrderShipped message of
 * the order worker's outbox, from a FIFO queue, one Data API call a message.
 *
 * @example
 * ```ts
 * // lib/: new InboxConsumer(this, 'NoticeWorker', { cluster, entry: 'functions/shipment-notices/index.ts', handler: 'handler' })
 * ```
 */
export const handler = middy()
  .use(injectLambdaContext(logger))
  .use(logMetrics(metrics))
  .use(inbox(shipmentNoticeOptions(dataApiDatabaseFromEnv(), { logger, metrics })));
