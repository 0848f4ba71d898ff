import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InboxConfigError, sql, type InboxOptions } from '../../functions/inbox/index.js';
import { inbox } from '../../functions/inbox/middleware/index.js';
import { drivers } from '../support/drivers.js';
import { middyVersions } from '../support/middy-versions.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { orderVersions, seedOrders, uniqueConsumer } from '../support/orders.js';
import { captureStdout } from '../support/capture-stdout.js';
import { failedIds, lambdaContext, sqsEvent, sqsRecord } from '../support/sqs-events.js';

type Ship = { orderId: string };

// Each middy major the peer range admits (middy 7 where its engines allow), on each driver.
const targets = middyVersions.flatMap(({ name, middy }) => drivers.map((driver) => ({ name: `${name} on ${driver.name}`, middy, driver })));

describe.each(targets)('the middy middleware with Powertools: $name', ({ middy, driver }) => {
  const fx = useInboxDatabase(driver);
  let stdout: ReturnType<typeof captureStdout>;
  beforeEach(() => { stdout = captureStdout(); });
  afterEach(() => stdout.restore());

  it('composes with injectLambdaContext and logMetrics: the batch response reaches Lambda, metrics are flushed and every record is logged', async () => {
    const consumer = uniqueConsumer('mw');
    const [orderId] = await seedOrders(fx.pool, 1);
    const logger = new Logger({ serviceName: 'orders', logLevel: 'INFO' });
    const metrics = new Metrics({ namespace: 'sqs-inbox-test', serviceName: 'orders' });
    const handler = middy()
      .use(injectLambdaContext(logger))
      .use(logMetrics(metrics))
      .use(inbox<Ship>({
        consumer, db: fx.db, logger, metrics,
        statement: (m) => sql`UPDATE orders SET version = version + 1 WHERE order_id = ${sql.uuid(m.orderId)}`,
      }));
    const ok = sqsRecord({ orderId }, { key: 'mw-1' });
    const dup = sqsRecord({ orderId }, { key: 'mw-1' });
    const broken = sqsRecord({ orderId: 'nope' });
    const context = lambdaContext();

    const response = await handler(sqsEvent(ok, dup, broken), context);

    expect(failedIds(response)).toEqual([broken.messageId]);
    expect((await orderVersions(fx.pool, [orderId!])).get(orderId!)).toBe(1);
    const emf = stdout.lines.find((line) => '_aws' in line);
    expect(emf).toMatchObject({ processed: 1, duplicate: 1, failed: 1, service: 'orders' });
    // One latency each for the processed, duplicate and failed record (a skipped one has none).
    expect((emf as { processingLatency: unknown }).processingLatency).toEqual([expect.any(Number), expect.any(Number), expect.any(Number)]);
    const records = stdout.lines.filter((line) => 'outcome' in line);
    expect(records.map((line) => line.outcome).sort()).toEqual(['duplicate', 'failed', 'processed']);
    expect(records.find((line) => line.outcome === 'processed')).toMatchObject({
      messageId: ok.messageId, key: 'mw-1', level: 'INFO', function_request_id: context.awsRequestId,
    });
    expect(records.find((line) => line.outcome === 'failed')).toMatchObject({ level: 'WARN', messageId: broken.messageId });
  });

  it('answers with the batch response over whatever a handler body returns', async () => {
    const consumer = uniqueConsumer('mw-body');
    const record = sqsRecord('not json');
    const handler = middy(async () => ({ batchItemFailures: [{ itemIdentifier: 'bogus' }] }))
      .use(inbox({ consumer, db: fx.db, handle: async () => undefined }));

    expect(await handler(sqsEvent(record), lambdaContext())).toEqual({ batchItemFailures: [] });
  });

  it('is silent without a logger or metrics', async () => {
    const consumer = uniqueConsumer('mw-quiet');
    const handler = middy().use(inbox({ consumer, db: fx.db, handle: async () => undefined }));

    await handler(sqsEvent(sqsRecord({ a: 1 })), lambdaContext());

    expect(stdout.lines).toEqual([]);
  });

  it('refuses bad options when it is made, not per message', () => {
    expect(() => inbox({ consumer: 'x', db: fx.db } as InboxOptions<unknown>)).toThrow(InboxConfigError);
    expect(() => inbox({ consumer: 'x', db: fx.db, handle: async () => undefined, concurrency: 0 })).toThrow(/concurrency must be a whole number from 1 to 1000, but 0 was given/);
  });
});
