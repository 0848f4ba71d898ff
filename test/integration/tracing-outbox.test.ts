import type { Message } from '@aws-sdk/client-sqs';
import { trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processBatch, sql, type Database, type TransactionModeOptions } from '../../functions/inbox/index.js';
import { relayOutbox, sqsTarget } from '../../functions/inbox/outbox/index.js';
import { sendMessages } from '../../functions/inbox/producer/index.js';
import { keyedAttributes, messageSize, traceAttributeBytes } from '../../functions/inbox/producer/sqs-entry.js';
import { resolvePublisher } from '../../functions/inbox/outbox/publisher.js';
import { sendRows, type QueuedRow } from '../../functions/inbox/outbox/send-rows.js';
import { AWS_LIMITS } from '../../functions/inbox/aws-limits.js';
import { uuidv7 } from '../../functions/inbox/internal.js';
import { toSqsRecord } from '../../local/event-source/index.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { seedOrders, uniqueConsumer } from '../support/orders.js';
import { ageOutbox, drainMessages, sqsFailingBodies } from '../support/outbox.js';
import { queueName, type TestSqs } from '../support/sqs.js';
import { lambdaContext, sqsEvent, sqsRecord } from '../support/sqs-events.js';
import { newTraceparent, useTracing, withTraceparent } from '../support/tracing.js';
import { pgDatabase } from '../../functions/inbox/pg/index.js';

type Ship = { orderId: string };

let local: TestSqs;
/** Bodies whose send entries the emulator fails while they are in it. */
let failing: Set<string>;

beforeAll(async () => {
  ({ local, failing } = await sqsFailingBodies());
});

afterAll(async () => {
  await local.close();
});

const traceparentOf = (message: Message) => message.MessageAttributes?.['traceparent']?.StringValue;
const queueOf = (url: string) => ({ arn: `arn:aws:sqs:us-east-1:000000000000:${url.split('/').at(-1)}`, region: 'us-east-1' });

describe.each(drivers)('one trace across two consumers through the outbox on $name', (driver) => {
  const fx = useInboxDatabase(driver);
  const tracing = useTracing();

  /** Orders' queue, a shipping consumer whose outbox tells the shipped queue, and a notifying consumer reading that queue. */
  async function chain() {
    const ordersUrl = await local.createQueue(queueName('orders'));
    const shippedUrl = await local.createQueue(queueName('shipped'));
    const shipper = uniqueConsumer('ship');
    const targets = { shipped: sqsTarget({ queueUrl: shippedUrl, client: local.client }) };
    const shipping: TransactionModeOptions<Ship> = {
      consumer: shipper,
      db: fx.db,
      outbox: { targets, maxAttempts: 1 },
      handle: async (order, { tx, outbox }) => {
        await tx.query(sql`UPDATE orders SET status = 'shipped' WHERE order_id = ${sql.uuid(order.orderId)}`);
        await outbox.send({ target: 'shipped', body: { shipped: order.orderId } });
      },
    };
    const notifying: TransactionModeOptions<{ shipped: string }> = { consumer: uniqueConsumer('notify'), db: fx.db, handle: async () => undefined };
    const spanOf = (queueUrl: string): ReadableSpan | undefined => tracing.named(`process ${queueUrl.split('/').at(-1)}`)
      .find((span) => span.attributes['messaging.message.id'] !== undefined);
    return { ordersUrl, shippedUrl, shipper, targets, shipping, notifying, spanOf };
  }

  /** The producer's span sends one order with sendMessages; the shipping consumer takes it. */
  async function placeAndShip(links: Awaited<ReturnType<typeof chain>>, orderId: string) {
    const placed = await tracing.inSpan('place order', () => sendMessages(local.client, links.ordersUrl, [{ body: { orderId }, key: `order-${orderId}` }]));
    const [order] = await drainMessages(local.client, links.ordersUrl);
    await processBatch(sqsEvent(toSqsRecord(order!, queueOf(links.ordersUrl))), lambdaContext(), links.shipping);
    return { producer: placed.span, order: order! };
  }

  it('sendMessages sends the active span\'s context as the traceparent attribute', async () => {
    const [orderId] = await seedOrders(fx.pool, 1);
    const links = await chain();

    const { producer, order } = await placeAndShip(links, orderId!);

    expect(traceparentOf(order)).toBe(`00-${producer.traceId}-${producer.spanId}-01`);
  });

  it('the after-commit send carries the row\'s context, and the next consumer\'s span continues the producer\'s trace', async () => {
    const [orderId] = await seedOrders(fx.pool, 1);
    const links = await chain();

    const { producer } = await placeAndShip(links, orderId!);
    const shipSpan = links.spanOf(links.ordersUrl)!;
    const { rows } = await fx.pool.query<{ trace_parent: string }>('SELECT trace_parent FROM outbox_message WHERE consumer_name = $1', [links.shipper]);
    const [notice] = await drainMessages(local.client, links.shippedUrl);
    await processBatch(sqsEvent(toSqsRecord(notice!, queueOf(links.shippedUrl))), lambdaContext(), links.notifying);

    expect(shipSpan.spanContext().traceId).toBe(producer.traceId);
    expect(rows).toEqual([{ trace_parent: `00-${producer.traceId}-${shipSpan.spanContext().spanId}-01` }]);
    expect(traceparentOf(notice!)).toBe(rows[0]!.trace_parent);
    const notifySpan = links.spanOf(links.shippedUrl)!;
    expect(notifySpan.spanContext().traceId).toBe(producer.traceId);
    expect(notifySpan.parentSpanContext?.spanId).toBe(shipSpan.spanContext().spanId);
    expect(notifySpan.attributes['sqs_inbox.outcome']).toBe('processed');
  });

  it('the relay, sending a row the after-commit send could not, sends the writer\'s context, not its own', async () => {
    const [orderId] = await seedOrders(fx.pool, 1);
    const links = await chain();
    failing.add(JSON.stringify({ shipped: orderId }));

    const { producer } = await placeAndShip(links, orderId!);
    const shipSpan = links.spanOf(links.ordersUrl)!;
    expect(await drainMessages(local.client, links.shippedUrl)).toEqual([]);
    failing.delete(JSON.stringify({ shipped: orderId }));
    await ageOutbox(fx.pool, links.shipper, 120);
    const relayed = await tracing.inSpan('relay run', () => relayOutbox(fx.db, links.targets, { consumer: links.shipper }));
    const [notice] = await drainMessages(local.client, links.shippedUrl);
    await processBatch(sqsEvent(toSqsRecord(notice!, queueOf(links.shippedUrl))), lambdaContext(), links.notifying);

    expect(relayed.result).toMatchObject({ sent: 1 });
    expect(relayed.span.traceId).not.toBe(producer.traceId);
    const notifySpan = links.spanOf(links.shippedUrl)!;
    expect(notifySpan.spanContext().traceId).toBe(producer.traceId);
    expect(notifySpan.parentSpanContext?.spanId).toBe(shipSpan.spanContext().spanId);
  });
});

describe.each(drivers)('statement mode, its statements batched, on $name', (driver) => {
  const fx = useInboxDatabase(driver);
  const tracing = useTracing();
  // pgDatabase batches only when asked to; the Data API driver always can.
  let db: Database;
  beforeAll(() => {
    db = driver.name === 'pg' ? pgDatabase({ connectionString: fx.url, batch: true }) : fx.db;
  });
  afterAll(async () => {
    if (db !== fx.db) await db.close();
  });

  it('builds each record\'s statement inside its one span, so each row stores its own message\'s context', async () => {
    const orderIds = await seedOrders(fx.pool, 3);
    const shippedUrl = await local.createQueue(queueName('shipped'));
    const consumer = uniqueConsumer('ship-batched');
    let batches = 0;
    const counted: Database = {
      query: (statement) => db.query(statement),
      transaction: (work) => db.transaction(work),
      batch: (statements) => { batches += 1; return db.batch!(statements); },
      close: () => db.close(),
    };
    const producers = orderIds.map(() => newTraceparent());
    const records = orderIds.map((orderId, i) => withTraceparent(sqsRecord({ orderId }, { key: `ship-${orderId}`, queueArn: 'arn:aws:sqs:us-east-1:000000000000:orders' }), producers[i]!.traceparent));

    await processBatch(sqsEvent(...records), lambdaContext(), {
      consumer,
      db: counted,
      batchStatements: true,
      statement: (order: Ship) => sql`UPDATE orders SET status = 'shipped' WHERE order_id = ${sql.uuid(order.orderId)}`,
      outbox: {
        targets: { shipped: sqsTarget({ queueUrl: shippedUrl, client: local.client }) },
        messages: (order: Ship) => [{ target: 'shipped', body: { shipped: order.orderId } }],
      },
    });

    const spans = tracing.named('process orders').filter((span) => span.attributes['messaging.message.id'] !== undefined);
    const { rows } = await fx.pool.query<{ message_key: string; trace_parent: string }>('SELECT message_key, trace_parent FROM outbox_message WHERE consumer_name = $1', [consumer]);
    expect(batches).toBe(1);
    expect(spans).toHaveLength(3);
    expect(rows.map((row) => row.trace_parent).sort()).toEqual(spans.map((span) => `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`).sort());
    expect(spans.map((span) => span.spanContext().traceId).sort()).toEqual(producers.map((producer) => producer.traceId).sort());
  });
});

describe('a trace context goes only where its message still fits', () => {
  const tracing = useTracing();
  const keyBytes = (key: string) => messageSize('', keyedAttributes({}, key));
  const firstLetters = (messages: Message[]) => Object.fromEntries(messages.map((message) => [message.Body!.slice(0, 1), traceparentOf(message)]));

  it('sendMessages sends a message that fits its limit only without its trace context without it, one with room with it', async () => {
    const url = await local.createQueue(queueName('orders'));
    const { traceparent } = newTraceparent();
    const room = traceAttributeBytes(traceparent);

    const { result, span } = await tracing.inSpan('place orders', () => sendMessages(local.client, url, [
      { body: 'f'.repeat(1024 - keyBytes('order-1')), key: 'order-1' },
      { body: 'r'.repeat(1024 - keyBytes('order-2') - room), key: 'order-2' },
    ], { maxBatchBytes: 1024 }));

    expect(result.failed).toEqual([]);
    expect(firstLetters(await drainMessages(local.client, url))).toEqual({ f: undefined, r: `00-${span.traceId}-${span.spanId}-01` });
  });

  it('the outbox holds a call\'s rows within its bytes with their trace contexts, and sends a row that fits only without its own', async () => {
    const url = await local.createQueue(queueName('shipped'));
    const publisher = resolvePublisher('shipped', sqsTarget({ queueUrl: url, client: local.client }));
    const { traceparent } = newTraceparent();
    const rowOf = (letter: string, bytes: number): QueuedRow => {
      const id = uuidv7();
      const body = letter.repeat(bytes - keyBytes(id));
      return { entry: { id, consumer: 'ship', target: 'shipped', body, attributes: {}, groupId: undefined, detailType: undefined, traceparent }, groupSeq: null, sizeBytes: bytes };
    };
    // a and b fill one call as written, and overflow it with their trace contexts; c is a whole message as written.
    const half = AWS_LIMITS.sqs.batchBytes / 2;
    const rows = [rowOf('a', half), rowOf('b', half), rowOf('c', AWS_LIMITS.sqs.batchBytes)];

    const results = await sendRows(new Map([['shipped', publisher]]), rows, { attempts: 1, backoff: { baseMs: 1 }, remainingMs: () => 60_000, marginMs: 1000, signal: new AbortController().signal });

    expect(results).toEqual({ sent: rows.map((row) => row.entry.id), refused: [], left: [] });
    expect(firstLetters(await drainMessages(local.client, url))).toEqual({ a: traceparent, b: traceparent, c: undefined });
  });
});

describe.each(drivers)('with no tracer provider registered on $name', (driver) => {
  const fx = useInboxDatabase(driver);
  beforeAll(() => trace.disable());

  it('makes no span (none is active in the handler), sends no context, stores none, and processes as before', async () => {
    const [orderId] = await seedOrders(fx.pool, 1);
    const ordersUrl = await local.createQueue(queueName('orders'));
    const shippedUrl = await local.createQueue(queueName('shipped'));
    const consumer = uniqueConsumer('untraced');
    const active: unknown[] = [];

    const sent = await sendMessages(local.client, ordersUrl, [{ body: { orderId } }]);
    const [order] = await drainMessages(local.client, ordersUrl);
    const response = await processBatch(sqsEvent(toSqsRecord(order!, queueOf(ordersUrl))), lambdaContext(), {
      consumer,
      db: fx.db,
      outbox: { targets: { shipped: sqsTarget({ queueUrl: shippedUrl, client: local.client }) } },
      handle: async (message: Ship, { outbox }) => {
        active.push(trace.getActiveSpan());
        await outbox.send({ target: 'shipped', body: { shipped: message.orderId } });
      },
    });
    const { rows } = await fx.pool.query('SELECT trace_parent FROM outbox_message WHERE consumer_name = $1', [consumer]);
    const [notice] = await drainMessages(local.client, shippedUrl);

    expect(sent.failed).toEqual([]);
    expect(response.batchItemFailures).toEqual([]);
    expect(active).toEqual([undefined]);
    expect(traceparentOf(order!)).toBeUndefined();
    expect(rows).toEqual([{ trace_parent: null }]);
    expect(traceparentOf(notice!)).toBeUndefined();
  });
});
