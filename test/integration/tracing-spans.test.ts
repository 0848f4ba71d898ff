import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { describe, expect, it, vi } from 'vitest';
import { PermanentError, processBatch, processKafkaBatch, sql, type InboxOptions, type KafkaInboxOptions, type Outcome } from '../../functions/inbox/index.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { kafkaEvent, kafkaRecord } from '../support/kafka-events.js';
import { orderVersions, seedOrders, uniqueConsumer } from '../support/orders.js';
import { lambdaContext, sqsEvent, sqsRecord } from '../support/sqs-events.js';
import { newTraceparent, useTracing, withAwsTraceHeader, withTraceparent } from '../support/tracing.js';

type Ship = { orderId: string; fail?: 'permanent' | 'transient' };

const QUEUE_ARN = 'arn:aws:sqs:us-east-1:123456789012:ship-orders';
const FIFO_ARN = 'arn:aws:sqs:us-east-1:123456789012:ship-orders.fifo';

describe.each(drivers)('a span per message on $name', (driver) => {
  const fx = useInboxDatabase(driver);
  const tracing = useTracing();

  /** A transaction-mode consumer that ships orders, the active span's id seen by its handler kept. */
  function shipper(extra: Partial<InboxOptions<Ship>> = {}) {
    const consumer = uniqueConsumer('traced');
    const outcomes: Outcome[] = [];
    const activeInHandler: string[] = [];
    const options: InboxOptions<Ship> = {
      consumer,
      db: fx.db,
      onOutcome: (outcome) => outcomes.push(outcome),
      handle: async (order, { tx }) => {
        activeInHandler.push(trace.getActiveSpan()?.spanContext().spanId ?? 'none');
        await tx.query(sql`UPDATE orders SET version = version + 1 WHERE order_id = ${sql.uuid(order.orderId)}`);
        if (order.fail === 'permanent') throw new PermanentError('order cancelled');
        if (order.fail === 'transient') throw new Error('warehouse unavailable');
      },
      ...extra,
    } as InboxOptions<Ship>;
    return { consumer, outcomes, activeInHandler, options };
  }

  const messageSpans = () => tracing.named('process ship-orders').filter((span) => span.attributes['messaging.message.id'] !== undefined);
  const batchSpans = () => tracing.named('process ship-orders').filter((span) => span.attributes['messaging.batch.message_count'] !== undefined);

  describe('a processed message: a consumer span continuing the producer\'s trace, the claim and effect inside it', () => {
    it('names the span for the queue, gives the conventions\' attributes and the kit\'s, parents and links it to the producer', async () => {
      const [orderId] = await seedOrders(fx.pool, 1);
      const { consumer, activeInHandler, options } = shipper();
      const producer = newTraceparent();
      const record = withTraceparent(sqsRecord({ orderId }, { key: `ship-${orderId}`, queueArn: QUEUE_ARN }), producer.traceparent);

      await processBatch(sqsEvent(record), lambdaContext(), options);

      const [span] = messageSpans();
      expect(span).toBeDefined();
      expect(span!.kind).toBe(SpanKind.CONSUMER);
      expect(span!.attributes).toEqual({
        'messaging.system': 'aws_sqs',
        'messaging.operation.type': 'process',
        'messaging.operation.name': 'process',
        'messaging.destination.name': 'ship-orders',
        'messaging.message.id': record.messageId,
        'messaging.consumer.group.name': consumer,
        'sqs_inbox.consumer': consumer,
        'sqs_inbox.idempotency_key': `ship-${orderId}`,
        'sqs_inbox.outcome': 'processed',
      });
      expect(span!.spanContext().traceId).toBe(producer.traceId);
      expect(span!.parentSpanContext?.spanId).toBe(producer.spanId);
      expect(span!.links.map((link) => link.context.spanId)).toContain(producer.spanId);
      expect(span!.status.code).toBe(SpanStatusCode.UNSET);
      expect(activeInHandler).toEqual([span!.spanContext().spanId]);
    });

    it('makes one batch span that links every record\'s context instead of parenting them', async () => {
      const orderIds = await seedOrders(fx.pool, 3);
      const { options } = shipper();
      const producers = orderIds.map(() => newTraceparent());
      const records = orderIds.map((orderId, i) => withTraceparent(sqsRecord({ orderId }, { queueArn: QUEUE_ARN }), producers[i]!.traceparent));

      await processBatch(sqsEvent(...records), lambdaContext(), options);

      const [batch] = batchSpans();
      expect(batchSpans()).toHaveLength(1);
      expect(batch!.kind).toBe(SpanKind.CONSUMER);
      expect(batch!.attributes['messaging.batch.message_count']).toBe(3);
      expect(batch!.links.map((link) => link.context.traceId).sort()).toEqual(producers.map((p) => p.traceId).sort());
      expect(producers.map((p) => p.traceId)).not.toContain(batch!.spanContext().traceId);
      expect(messageSpans().map((span) => span.spanContext().traceId).sort()).toEqual(producers.map((p) => p.traceId).sort());
    });

    it('parents a record without a context by the batch span', async () => {
      const [orderId] = await seedOrders(fx.pool, 1);
      const { options } = shipper();

      await processBatch(sqsEvent(sqsRecord({ orderId }, { queueArn: QUEUE_ARN })), lambdaContext(), options);

      const [span] = messageSpans();
      const [batch] = batchSpans();
      expect(span!.parentSpanContext?.spanId).toBe(batch!.spanContext().spanId);
      expect(span!.links).toEqual([]);
    });

    it('continues an X-Ray traced sender\'s trace from the AWSTraceHeader system attribute', async () => {
      const [orderId] = await seedOrders(fx.pool, 1);
      const { options } = shipper();
      const record = withAwsTraceHeader(sqsRecord({ orderId }, { queueArn: QUEUE_ARN }), 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1');

      await processBatch(sqsEvent(record), lambdaContext(), options);

      const [span] = messageSpans();
      expect(span!.spanContext().traceId).toBe('5759e988bd862e3fe1be46a994272793');
      expect(span!.parentSpanContext?.spanId).toBe('53995c3f42cd8ad8');
    });

    it('writes the span\'s trace id on the outcome\'s log line, so logs and traces meet', async () => {
      const [orderId] = await seedOrders(fx.pool, 1);
      const logger = { debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() };
      const { options } = shipper({ logger });
      const producer = newTraceparent();

      await processBatch(sqsEvent(withTraceparent(sqsRecord({ orderId }, { queueArn: QUEUE_ARN }), producer.traceparent)), lambdaContext(), options);

      expect(logger.info).toHaveBeenCalledWith('message processed', expect.objectContaining({ outcome: 'processed', traceId: producer.traceId }));
    });
  });

  describe('every outcome is the span\'s attribute; a failure is its error', () => {
    it('says duplicate for a redelivery, and the duplicate\'s span continues the same trace', async () => {
      const [orderId] = await seedOrders(fx.pool, 1);
      const { options } = shipper();
      const producer = newTraceparent();
      const record = withTraceparent(sqsRecord({ orderId }, { key: `once-${orderId}`, queueArn: QUEUE_ARN }), producer.traceparent);

      await processBatch(sqsEvent(record), lambdaContext(), options);
      await processBatch(sqsEvent(record), lambdaContext(), options);

      expect(messageSpans().map((span) => [span.attributes['sqs_inbox.outcome'], span.spanContext().traceId])).toEqual([
        ['processed', producer.traceId], ['duplicate', producer.traceId],
      ]);
      expect(await orderVersions(fx.pool, [orderId!])).toEqual(new Map([[orderId, 1]]));
    });

    it('says collision for a known key with another body', async () => {
      const [first, second] = await seedOrders(fx.pool, 2);
      const { options } = shipper();

      await processBatch(sqsEvent(sqsRecord({ orderId: first }, { key: 'reused', queueArn: QUEUE_ARN })), lambdaContext(), options);
      await processBatch(sqsEvent(sqsRecord({ orderId: second }, { key: 'reused', queueArn: QUEUE_ARN })), lambdaContext(), options);

      expect(messageSpans().map((span) => span.attributes['sqs_inbox.outcome'])).toEqual(['processed', 'collision']);
    });

    it('says rejected for a PermanentError and for a body that does not parse, without an error status', async () => {
      const [orderId] = await seedOrders(fx.pool, 1);
      const { options } = shipper();

      await processBatch(sqsEvent(sqsRecord({ orderId, fail: 'permanent' }, { queueArn: QUEUE_ARN }), sqsRecord('{not json', { queueArn: QUEUE_ARN })), lambdaContext(), options);

      expect(messageSpans().map((span) => [span.attributes['sqs_inbox.outcome'], span.status.code])).toEqual([
        ['rejected', SpanStatusCode.UNSET], ['rejected', SpanStatusCode.UNSET],
      ]);
    });

    it('says failed with status ERROR and the exception for a handler that throws', async () => {
      const [orderId] = await seedOrders(fx.pool, 1);
      const { options } = shipper();

      await processBatch(sqsEvent(sqsRecord({ orderId, fail: 'transient' }, { queueArn: QUEUE_ARN })), lambdaContext(), options);

      const [span] = messageSpans();
      expect(span!.attributes['sqs_inbox.outcome']).toBe('failed');
      expect(span!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'warehouse unavailable' });
      expect(span!.events.map((event) => [event.name, event.attributes?.['exception.message']])).toEqual([['exception', 'warehouse unavailable']]);
    });

    it('ends the span of a failure whose thrown value throws when read, and the batch answers as without tracing', async () => {
      const [orderId] = await seedOrders(fx.pool, 1);
      const hostile = Object.defineProperty(new Error('unread'), 'message', { get: () => { throw new Error('no message for you'); } });
      const revoked = Proxy.revocable({}, {});
      revoked.revoke();
      const thrown = [hostile, revoked.proxy, Object.create(null) as object];
      let call = 0;
      const { options } = shipper({ handle: async () => { throw thrown[call++]; } });
      const records = thrown.map(() => sqsRecord({ orderId }, { queueArn: QUEUE_ARN }));

      const response = await processBatch(sqsEvent(...records), lambdaContext(), options);

      expect(response.batchItemFailures.map((failure) => failure.itemIdentifier).sort()).toEqual(records.map((record) => record.messageId).sort());
      expect(messageSpans().map((span) => [span.attributes['sqs_inbox.outcome'], span.status])).toEqual(thrown.map(() => [
        'failed', { code: SpanStatusCode.ERROR, message: 'a thrown value that cannot be read' },
      ]));
    });

    it('says skipped for the rest of a FIFO group after a failure', async () => {
      const [failing, waiting] = await seedOrders(fx.pool, 2);
      const { options } = shipper();
      const records = [
        sqsRecord({ orderId: failing, fail: 'transient' }, { groupId: 'customer-1', queueArn: FIFO_ARN }),
        sqsRecord({ orderId: waiting }, { groupId: 'customer-1', queueArn: FIFO_ARN }),
      ];

      await processBatch(sqsEvent(...records), lambdaContext(), options);

      const spans = tracing.named('process ship-orders.fifo').filter((span) => span.attributes['messaging.message.id'] !== undefined);
      expect(spans.map((span) => [span.attributes['messaging.message.id'], span.attributes['sqs_inbox.outcome']])).toEqual([
        [records[0]!.messageId, 'failed'], [records[1]!.messageId, 'skipped'],
      ]);
    });
  });

  describe('Kafka: the context from the record\'s headers', () => {
    it('continues the producer\'s trace from a traceparent header, named for the topic', async () => {
      const [orderId] = await seedOrders(fx.pool, 1);
      const { consumer } = shipper();
      const options: KafkaInboxOptions<Ship> = {
        consumer,
        db: fx.db,
        handle: async (order, { tx }) => { await tx.query(sql`UPDATE orders SET version = version + 1 WHERE order_id = ${sql.uuid(order.orderId)}`); },
      };
      const producer = newTraceparent();
      const record = kafkaRecord({ orderId }, { topic: 'ship-orders', partition: 1, headers: { traceparent: producer.traceparent } });

      await processKafkaBatch(kafkaEvent([record]), lambdaContext(), options);

      const [span] = messageSpans();
      expect(span!.attributes).toMatchObject({ 'messaging.system': 'kafka', 'messaging.destination.name': 'ship-orders', 'sqs_inbox.outcome': 'processed' });
      expect(span!.spanContext().traceId).toBe(producer.traceId);
      expect(span!.parentSpanContext?.spanId).toBe(producer.spanId);
    });
  });
});
