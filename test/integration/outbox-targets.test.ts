import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateTopicCommand } from '@aws-sdk/client-sns';
import { processBatch, processKafkaBatch, sql, type Outcome } from '../../functions/inbox/index.js';
import { eventBridgeTarget, relayOutbox, snsTarget } from '../../functions/inbox/outbox/index.js';
import { localEventBridgeClient, startEventBridge, type EventBridgeFaults, type RunningEventBridge } from '../../local/eventbridge/index.js';
import { localSnsClient, startSns, type PublishedMessage, type RunningSns, type SnsFaults } from '../../local/sns/index.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { kafkaEvent, kafkaRecord } from '../support/kafka-events.js';
import { orderVersions, seedOrders, uniqueConsumer } from '../support/orders.js';
import { ageOutbox, outboxRows } from '../support/outbox.js';
import { lambdaContext, sqsEvent, sqsRecord } from '../support/sqs-events.js';

type Ship = { orderId: string; customerId?: string };

let bus: RunningEventBridge;
let sns: RunningSns;
let busFaults: EventBridgeFaults = {};
let topicFaults: SnsFaults = {};
const events = () => localEventBridgeClient(bus.endpoint);
const topics = () => localSnsClient(sns.endpoint);

beforeAll(async () => {
  bus = await startEventBridge({ buses: ['orders'] });
  bus.setFaults({ failEntry: (entry) => busFaults.failEntry?.(entry) ?? false, loseResponse: (call) => busFaults.loseResponse?.(call) ?? false });
  sns = await startSns();
  sns.setFaults({ loseResponse: (call) => topicFaults.loseResponse?.(call) ?? false });
});

afterAll(async () => {
  await bus.close();
  await sns.close();
});

const ship = (order: Ship) => sql`UPDATE orders SET status = 'shipped', version = version + 1 WHERE order_id = ${sql.uuid(order.orderId)}`;

/** An SNS notification as a subscription without raw message delivery puts it into an SQS queue. */
function snsNotification(topicArn: string, published: PublishedMessage): string {
  return JSON.stringify({
    Type: 'Notification', MessageId: published.messageId, TopicArn: topicArn, Message: published.message, Timestamp: new Date().toISOString(),
    SignatureVersion: '1', Signature: 'c2lnbmF0dXJl', SigningCertURL: 'https://sns.us-east-1.amazonaws.com/cert.pem', UnsubscribeURL: 'https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe',
    MessageAttributes: Object.fromEntries(Object.entries(published.attributes).map(([name, { dataType, value }]) => [name, { Type: dataType, Value: value }])),
  });
}

describe.each(drivers)('outbox targets beyond SQS on $name', (driver) => {
  const fx = useInboxDatabase(driver);

  describe('EventBridge: the row\'s id rides in the detail, and the next consumer\'s default key reads it', () => {
    it('a Kafka consumer puts events whose detail carries "idempotency-key"; put twice (a lost answer), the next inbox applies one', async () => {
      const consumer = uniqueConsumer('to-events');
      const [orderId] = await seedOrders(fx.pool, 1);
      const before = bus.events('orders').length;
      const sent: string[] = [];
      let lose = 1;
      busFaults = { loseResponse: () => lose-- > 0 };
      let response;
      try {
        response = await processKafkaBatch<Ship>(kafkaEvent([kafkaRecord({ orderId })]), lambdaContext(), {
          consumer, db: fx.db,
          outbox: { targets: { events: eventBridgeTarget({ eventBusName: 'orders', client: events() }) } },
          handle: async (order, { tx, outbox }) => {
            await tx.query(ship(order));
            sent.push(await outbox.send({ target: 'events', detailType: 'OrderShipped', body: { orderId: order.orderId } }));
          },
        });
      } finally {
        busFaults = {};
      }

      expect(response.batchItemFailures).toEqual([]);
      // EventBridge has no deduplication: the retried put is a second event, with an id and a time of its own.
      const put = bus.events('orders').slice(before);
      expect(put).toEqual([0, 1].map(() => expect.objectContaining({ source: consumer, 'detail-type': 'OrderShipped', detail: { 'idempotency-key': sent[0], orderId } })));
      expect(put[0]!.id).not.toBe(put[1]!.id);
      expect((await outboxRows(fx.pool, consumer))[0]).toMatchObject({ id: sent[0], dispatched_at: expect.any(Date), detail_type: 'OrderShipped' });

      // A rule delivers each event whole to a queue; the next consumer's default key reads the detail's.
      const next: Outcome[] = [];
      const downstream = uniqueConsumer('from-events');
      await processBatch(sqsEvent(...put.map((event) => sqsRecord(event, { key: null }))), lambdaContext(), {
        consumer: downstream, db: fx.db, onOutcome: (o) => next.push(o), statement: () => ship({ orderId: orderId! }),
      });
      expect(next.map((o) => [o.kind, o.key, o.keyFallback])).toEqual([['processed', sent[0], undefined], ['duplicate', sent[0], undefined]]);
      expect((await orderVersions(fx.pool, [orderId!])).get(orderId!)).toBe(2);
    });

    it('an entry EventBridge fails is left for the relay, which puts it once its grace is over', async () => {
      const consumer = uniqueConsumer('to-events-flaky');
      const [orderId] = await seedOrders(fx.pool, 1);
      const target = eventBridgeTarget({ eventBusName: 'orders', source: 'com.example.orders', client: events() });
      busFaults = { failEntry: () => true };
      try {
        await processBatch<Ship>(sqsEvent(sqsRecord({ orderId }, { key: `flaky-${orderId}` })), lambdaContext(), {
          consumer, db: fx.db, statement: ship,
          outbox: { targets: { events: target }, maxAttempts: 1, messages: (order) => [{ target: 'events', body: { orderId: order.orderId } }] },
        });
      } finally {
        busFaults = {};
      }
      const [left] = await outboxRows(fx.pool, consumer);
      expect(left).toMatchObject({ dispatched_at: null, error: expect.stringContaining('InternalFailure') });

      await ageOutbox(fx.pool, consumer, 120);
      const before = bus.events('orders').length;
      expect(await relayOutbox(fx.db, { events: target }, { consumer })).toMatchObject({ sent: 1, undispatched: 0 });
      expect(bus.events('orders').slice(before)).toEqual([expect.objectContaining({ source: 'com.example.orders', 'detail-type': 'events', detail: { 'idempotency-key': left!.id, orderId } })]);
    });

    it('a body that is not a JSON object cannot be a detail: the message is rejected with the reason', async () => {
      const consumer = uniqueConsumer('to-events-bad');
      const outcomes: Outcome[] = [];
      await processBatch(sqsEvent(sqsRecord({ n: 1 }, { key: `bad-${consumer}` })), lambdaContext(), {
        consumer, db: fx.db, onOutcome: (o) => outcomes.push(o), statement: () => sql`SELECT 1`,
        outbox: { targets: { events: eventBridgeTarget({ eventBusName: 'orders', client: events() }) }, messages: () => [{ target: 'events', body: '[1, 2]' }] },
      });

      expect(outcomes[0]?.kind).toBe('rejected');
      expect(String((outcomes[0]?.error as Error).message)).toMatch(/not a JSON object/);
      expect(await outboxRows(fx.pool, consumer)).toEqual([]);
    });
  });

  describe('SNS: the row\'s id as the idempotency-key attribute, and on FIFO topics the deduplication id', () => {
    it('a FIFO topic gets each row with its group and the id as MessageDeduplicationId, in order', async () => {
      const consumer = uniqueConsumer('to-topic');
      const { TopicArn } = await topics().send(new CreateTopicCommand({ Name: `${consumer}.fifo`, Attributes: { FifoTopic: 'true' } }));
      const ids = await seedOrders(fx.pool, 3);

      await processKafkaBatch<Ship>(kafkaEvent(ids.map((orderId) => kafkaRecord({ orderId, customerId: 'c-1' }))), lambdaContext(), {
        consumer, db: fx.db, statement: ship,
        outbox: { targets: { notices: snsTarget({ topicArn: TopicArn!, client: topics() }) }, messages: (order) => [{ target: 'notices', body: order, groupId: order.customerId }] },
      });

      const rows = (await outboxRows(fx.pool, consumer)).sort((a, b) => Number(a.group_seq) - Number(b.group_seq));
      expect(sns.messages(TopicArn!).map((m) => [m.groupId, m.deduplicationId, m.attributes['idempotency-key']?.value])).toEqual(rows.map((row) => ['c-1', row.id, row.id]));
      expect(sns.messages(TopicArn!).map((m) => JSON.parse(m.message).orderId)).toEqual(ids);
    });

    it('a lost answer publishes twice on a standard topic; both copies carry the key, and the next inbox applies one', async () => {
      const consumer = uniqueConsumer('to-topic-lossy');
      const { TopicArn } = await topics().send(new CreateTopicCommand({ Name: consumer }));
      const [orderId] = await seedOrders(fx.pool, 1);
      let lose = 1;
      topicFaults = { loseResponse: ({ operation }) => operation === 'PublishBatch' && lose-- > 0 };
      try {
        await processBatch<Ship>(sqsEvent(sqsRecord({ orderId }, { key: `lossy-${orderId}` })), lambdaContext(), {
          consumer, db: fx.db, statement: ship,
          outbox: { targets: { notices: snsTarget({ topicArn: TopicArn!, client: topics() }) }, messages: (order) => [{ target: 'notices', body: order, attributes: { kind: 'shipped' } }] },
        });
      } finally {
        topicFaults = {};
      }

      const published = sns.messages(TopicArn!);
      expect(published).toHaveLength(2);
      const [row] = await outboxRows(fx.pool, consumer);
      expect(row?.dispatched_at).toBeInstanceOf(Date);
      expect(published.map((m) => m.attributes)).toEqual([0, 1].map(() => ({ kind: { dataType: 'String', value: 'shipped' }, 'idempotency-key': { dataType: 'String', value: row!.id } })));
      const next: Outcome[] = [];
      const downstream = uniqueConsumer('from-topic');
      await processBatch(sqsEvent(...published.map((m) => sqsRecord(snsNotification(TopicArn!, m), { key: null }))), lambdaContext(), {
        consumer: downstream, db: fx.db, onOutcome: (o) => next.push(o), statement: () => ship({ orderId: orderId! }),
      });
      expect(next.map((o) => [o.kind, o.key])).toEqual([['processed', row!.id], ['duplicate', row!.id]]);
    });

    it('a topic that does not exist fails the rows at once after the commit, with the reason', async () => {
      const consumer = uniqueConsumer('to-no-topic');
      await processBatch(sqsEvent(sqsRecord({ n: 1 }, { key: `gone-${consumer}` })), lambdaContext(), {
        consumer, db: fx.db, statement: () => sql`SELECT 1`,
        outbox: { targets: { notices: snsTarget({ topicArn: `arn:aws:sns:us-east-1:${sns.accountId}:gone`, client: topics() }) }, messages: () => [{ target: 'notices', body: 'x' }] },
      });

      expect(await outboxRows(fx.pool, consumer)).toEqual([expect.objectContaining({ failed_at: expect.any(Date), error: expect.stringMatching(/the target does not exist \(NotFoundException/) })]);
    });
  });
});
