import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InboxConfigError, InvalidEventError, type KafkaInboxOptions } from '../../functions/inbox/index.js';
import type { KafkaEvent } from '../../functions/inbox/kafka/index.js';
import { kafkaInbox } from '../../functions/inbox/middleware/index.js';
import { countingDatabase } from '../support/counting-database.js';
import { drivers } from '../support/drivers.js';
import { middyVersions } from '../support/middy-versions.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { kafkaMessageId, shipStatement, type Ship } from '../support/kafka-inbox.js';
import { kafkaEvent, kafkaFailures, kafkaRecord } from '../support/kafka-events.js';
import { orderVersions, seedOrders, uniqueConsumer } from '../support/orders.js';
import { captureStdout } from '../support/capture-stdout.js';
import { lambdaContext, sqsEvent, sqsRecord } from '../support/sqs-events.js';

// Each middy major the peer range admits (middy 7 where its engines allow), on each driver.
const targets = middyVersions.flatMap(({ name, middy }) => drivers.map((driver) => ({ name: `${name} on ${driver.name}`, middy, driver })));

describe.each(targets)('the Kafka middy middleware with Powertools: $name', ({ middy, driver }) => {
  const fx = useInboxDatabase(driver);
  let stdout: ReturnType<typeof captureStdout>;
  beforeEach(() => { stdout = captureStdout(); });
  afterEach(() => stdout.restore());

  it('composes with injectLambdaContext and logMetrics: the Kafka batch response reaches Lambda, metrics are flushed and every record is logged', async () => {
    const consumer = uniqueConsumer('kmw');
    const [orderId, laterId] = await seedOrders(fx.pool, 2);
    const logger = new Logger({ serviceName: 'orders', logLevel: 'INFO' });
    const metrics = new Metrics({ namespace: 'sqs-inbox-test', serviceName: 'orders' });
    const handler = middy()
      .use(injectLambdaContext(logger))
      .use(logMetrics(metrics))
      .use(kafkaInbox<Ship>({ consumer, db: fx.db, logger, metrics, statement: (m) => shipStatement(m.orderId) }));
    const ok = kafkaRecord({ orderId }, { partition: 0, headers: { 'idempotency-key': 'kmw-1' } });
    const dup = kafkaRecord({ orderId }, { partition: 1, headers: { 'idempotency-key': 'kmw-1' } });
    const broken = kafkaRecord({ orderId: 'nope' }, { partition: 2 });
    const later = kafkaRecord({ orderId: laterId }, { partition: 2 });
    const context = lambdaContext();

    const response = await handler(kafkaEvent([ok, dup, broken, later]), context);

    expect(response).toEqual(kafkaFailures(broken, later));
    expect(await orderVersions(fx.pool, [orderId!, laterId!])).toEqual(new Map([[orderId, 1], [laterId, 0]]));
    const emf = stdout.lines.find((line) => '_aws' in line);
    expect(emf).toMatchObject({ processed: 1, duplicate: 1, failed: 1, skipped: 1, service: 'orders' });
    // One latency each for the processed, duplicate and failed record (a skipped one has none).
    expect((emf as { processingLatency: unknown }).processingLatency).toEqual([expect.any(Number), expect.any(Number), expect.any(Number)]);
    const records = stdout.lines.filter((line) => 'outcome' in line);
    expect(records.map((line) => line.outcome).sort()).toEqual(['duplicate', 'failed', 'processed', 'skipped']);
    // The two copies of kmw-1 are in different partitions, which run in parallel: either may claim first.
    const processed = records.find((line) => line.outcome === 'processed');
    const duplicate = records.find((line) => line.outcome === 'duplicate');
    expect(processed).toMatchObject({ key: 'kmw-1', level: 'INFO', function_request_id: context.awsRequestId });
    expect([processed?.messageId, duplicate?.messageId].sort()).toEqual([kafkaMessageId(ok), kafkaMessageId(dup)].sort());
    expect(processed?.lane).toBe(String(processed?.messageId).split('@')[0]);
    expect(records.find((line) => line.outcome === 'failed')).toMatchObject({ level: 'WARN', messageId: kafkaMessageId(broken), lane: 'orders-2' });
    expect(records.find((line) => line.outcome === 'skipped')).toMatchObject({ level: 'WARN', messageId: kafkaMessageId(later) });
  });

  it('answers with the Kafka batch response over whatever a handler body returns', async () => {
    const consumer = uniqueConsumer('kmw-body');
    const handler = middy(async () => ({ batchItemFailures: [{ itemIdentifier: { partition: 'bogus-0', offset: 7 } }] }))
      .use(kafkaInbox({ consumer, db: fx.db, handle: async () => undefined }));

    expect(await handler(kafkaEvent([kafkaRecord('not json')]), lambdaContext())).toEqual({ batchItemFailures: [] });
  });

  it('refuses an SQS event before any database call, so Lambda retries the invocation', async () => {
    const counted = countingDatabase(fx.db);
    const handler = middy().use(kafkaInbox({ consumer: uniqueConsumer('kmw-sqs'), db: counted.db, handle: async () => undefined }));

    await expect(handler(sqsEvent(sqsRecord({ a: 1 })) as unknown as KafkaEvent, lambdaContext())).rejects.toThrow(InvalidEventError);
    expect(counted.calls()).toBe(0);
  });

  it('is silent without a logger or metrics', async () => {
    const consumer = uniqueConsumer('kmw-quiet');
    const handler = middy().use(kafkaInbox({ consumer, db: fx.db, handle: async () => undefined }));

    await handler(kafkaEvent([kafkaRecord({ a: 1 })]), lambdaContext());

    expect(stdout.lines).toEqual([]);
  });

  it('refuses bad options when it is made, not per record', () => {
    expect(() => kafkaInbox({ consumer: 'x', db: fx.db } as KafkaInboxOptions<unknown>)).toThrow(InboxConfigError);
    expect(() => kafkaInbox({ consumer: 'x', db: fx.db, handle: async () => undefined, concurrency: 0 })).toThrow(/concurrency must be a whole number from 1 to 1000, but 0 was given/);
    expect(() => kafkaInbox({ consumer: 'x', db: fx.db, handle: async () => undefined, laneFailure: 'partition' as 'lane' })).toThrow(/laneFailure must be 'lane' or 'batch'/);
  });
});
