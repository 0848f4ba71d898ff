import { trace } from '@opentelemetry/api';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { processKafkaBatch, sql, type KafkaInboxOptions } from '../../functions/inbox/index.js';
import { KafkaLog, startKafkaEventSource, type RunningKafkaEventSource } from '../../local/kafka/index.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { seedOrders, uniqueConsumer } from '../support/orders.js';
import { lambdaContext } from '../support/sqs-events.js';
import { useTracing } from '../support/tracing.js';

type Ship = { orderId: string };

const running: RunningKafkaEventSource[] = [];
afterEach(async () => {
  for (const source of running.splice(0)) await source.stop();
});

describe.each(drivers)('Kafka through the local event source: the context in headers, on $name', (driver) => {
  const fx = useInboxDatabase(driver);
  const tracing = useTracing();

  it('continues each producer\'s trace in the consumer\'s span, a redelivered record\'s duplicate span too', async () => {
    const orderIds = await seedOrders(fx.pool, 3);
    const log = new KafkaLog();
    log.createTopic('ship-orders');
    // A producer span a record, its context in the traceparent header as OpenTelemetry's Kafka instrumentation writes it.
    const producers = new Map<string, string>();
    for (const orderId of orderIds) {
      await tracing.inSpan('place order', async () => {
        const { traceId, spanId } = trace.getActiveSpan()!.spanContext();
        producers.set(orderId, traceId);
        await log.produce('ship-orders', { key: orderId, value: JSON.stringify({ orderId }), headers: { traceparent: `00-${traceId}-${spanId}-01` } });
      });
    }
    const options: KafkaInboxOptions<Ship> = {
      consumer: uniqueConsumer('kafka-traced'),
      db: fx.db,
      handle: async (order, { tx }) => { await tx.query(sql`UPDATE orders SET version = version + 1 WHERE order_id = ${sql.uuid(order.orderId)}`); },
    };
    const source = startKafkaEventSource({
      log,
      topic: 'ship-orders',
      maxBatchingWindowMs: 0,
      retryDelayMs: 0,
      handler: (event) => processKafkaBatch(event, lambdaContext(), options),
      faults: { deliverTwice: (batch) => batch.attempt === 1 },
    });
    running.push(source);
    await vi.waitFor(() => expect(source.committedOffsets()).toEqual({ 'ship-orders-0': 3 }), { timeout: 10_000, interval: 20 });

    const spans = tracing.named('process ship-orders').filter((span) => span.attributes['messaging.message.id'] !== undefined);
    const byOutcome = (kind: string) => spans.filter((span) => span.attributes['sqs_inbox.outcome'] === kind).map((span) => span.spanContext().traceId).sort();
    expect(byOutcome('processed')).toEqual([...producers.values()].sort());
    expect(byOutcome('duplicate')).toEqual([...producers.values()].sort());
    expect(spans.every((span) => span.attributes['messaging.system'] === 'kafka')).toBe(true);
  });
});
