import { CreateTopicCommand, PublishCommand, SubscribeCommand } from '@aws-sdk/client-sns';
import { describe, expect, it, vi } from 'vitest';
import { processBatch, sql, type InboxLogger, type Outcome, type StatementModeOptions } from '../../functions/inbox/index.js';
import { localSnsClient, localSqsClient, startEventSource, startSns, startSqs } from '../../local/index.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { inboxRows, orderVersions, seedOrders, uniqueConsumer } from '../support/orders.js';
import { eventBridgeEvent, failedIds, lambdaContext, snsNotification, sqsEvent, sqsRecord } from '../support/sqs-events.js';

type Ship = { orderId: string };
/** The fallback-key warning is inbox-key-fallback.test.ts's subject: here nobody reads it. */
const quiet: InboxLogger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

describe.each(drivers)('the default parse gives the message an SNS or EventBridge envelope wraps, on $name', (driver) => {
  const fx = useInboxDatabase(driver);

  /** A consumer whose statement reads the message's orderId, with the default parse and key. */
  const ship = (consumer: string, outcomes: Outcome[]): StatementModeOptions<Ship> => ({
    consumer, db: fx.db, logger: quiet, onOutcome: (o) => outcomes.push(o),
    statement: (m) => sql`UPDATE orders SET version = version + 1 WHERE order_id = ${sql.uuid(m.orderId)}`,
  });

  it.each([
    ['raw delivery (the message is the body)', (orderId: string) => sqsRecord({ orderId }, { key: null }), undefined],
    ['an SNS notification without MessageAttributes', (orderId: string) => sqsRecord(snsNotification({ orderId }), { key: null }), undefined],
    ['an SNS notification whose idempotency-key attribute is its key', (orderId: string) => sqsRecord(snsNotification({ orderId }, { key: `sns-${orderId}` }), { key: null }), 'sns-'],
    ['an EventBridge event whose detail carries its key', (orderId: string) => sqsRecord(eventBridgeEvent({ 'idempotency-key': `eb-${orderId}`, orderId }), { key: null }), 'eb-'],
    ['an EventBridge event without a key', (orderId: string) => sqsRecord(eventBridgeEvent({ orderId }), { key: null }), undefined],
  ] as const)('%s: processed once, the order updated', async (_label, record, keyPrefix) => {
    const consumer = uniqueConsumer('envelope');
    const [orderId] = await seedOrders(fx.pool, 1) as [string];
    const outcomes: Outcome[] = [];
    const delivered = record(orderId);

    const response = await processBatch(sqsEvent(delivered), lambdaContext(), ship(consumer, outcomes));

    expect(failedIds(response)).toEqual([]);
    expect(outcomes.map((o) => o.kind)).toEqual(['processed']);
    expect(outcomes[0]?.key).toBe(keyPrefix === undefined ? delivered.messageId : `${keyPrefix}${orderId}`);
    expect((await orderVersions(fx.pool, [orderId])).get(orderId)).toBe(1);
  });

  it('a second publish of one SNS message (a new envelope, the same key) is a duplicate', async () => {
    const consumer = uniqueConsumer('envelope-again');
    const [orderId] = await seedOrders(fx.pool, 1) as [string];
    const outcomes: Outcome[] = [];
    const publish = () => sqsRecord(snsNotification({ orderId }, { key: `sns-${orderId}` }), { key: null });

    await processBatch(sqsEvent(publish()), lambdaContext(), ship(consumer, outcomes));
    await processBatch(sqsEvent(publish()), lambdaContext(), ship(consumer, outcomes));

    expect(outcomes.map((o) => o.kind)).toEqual(['processed', 'duplicate']);
    expect((await orderVersions(fx.pool, [orderId])).get(orderId)).toBe(1);
  });

  it('an SNS notification whose Message is not JSON is rejected, as a raw body that is not JSON is', async () => {
    const consumer = uniqueConsumer('envelope-text');
    const outcomes: Outcome[] = [];
    const delivered = sqsRecord(snsNotification('plain text', { key: 'sns-text' }), { key: null });

    const response = await processBatch(sqsEvent(delivered), lambdaContext(), ship(consumer, outcomes));

    expect(failedIds(response)).toEqual([]);
    expect(outcomes.map((o) => o.kind)).toEqual(['rejected']);
    expect((await inboxRows(fx.pool, consumer)).get('sns-text')?.status).toBe('rejected');
  });

  it('through the local SNS to two queues, one with raw delivery: each consumer applies the publish once, by its key', async () => {
    const sqs = await startSqs();
    const sns = await startSns({ sqsEndpoint: sqs.endpoint });
    const snsClient = localSnsClient(sns.endpoint);
    const sqsClient = localSqsClient(sqs.endpoint);
    try {
      const { TopicArn } = await snsClient.send(new CreateTopicCommand({ Name: 'orders' }));
      const consumers = await Promise.all([false, true].map(async (raw) => {
        const { queueUrl } = await sqs.createQueue(uniqueConsumer(raw ? 'raw' : 'enveloped'));
        const queueArn = `arn:aws:sqs:${sqs.region}:${sqs.accountId}:${queueUrl.split('/').pop()!}`;
        await snsClient.send(new SubscribeCommand({ TopicArn, Protocol: 'sqs', Endpoint: queueArn, Attributes: { RawMessageDelivery: String(raw) } }));
        return { queueUrl, consumer: uniqueConsumer('subscribed'), outcomes: [] as Outcome[] };
      }));
      const [orderId] = await seedOrders(fx.pool, 1) as [string];

      await snsClient.send(new PublishCommand({ TopicArn, Message: JSON.stringify({ orderId }), MessageAttributes: { 'idempotency-key': { DataType: 'String', StringValue: `ship-${orderId}` } } }));
      const sources = await Promise.all(consumers.map(({ queueUrl, consumer, outcomes }) => startEventSource({
        client: sqsClient, queueUrl, waitTimeSeconds: 1, handler: (event, context) => processBatch(event, context, ship(consumer, outcomes)),
      })));
      await vi.waitFor(() => expect(consumers.map(({ outcomes }) => outcomes.length)).toEqual([1, 1]), { timeout: 10_000 });
      await Promise.all(sources.map((source) => source.stop()));

      expect(consumers.map(({ outcomes }) => [outcomes[0]?.kind, outcomes[0]?.key])).toEqual([['processed', `ship-${orderId}`], ['processed', `ship-${orderId}`]]);
      expect((await orderVersions(fx.pool, [orderId])).get(orderId)).toBe(2);
    } finally {
      sqsClient.destroy();
      snsClient.destroy();
      await sns.close();
      await sqs.close();
    }
  });
});
