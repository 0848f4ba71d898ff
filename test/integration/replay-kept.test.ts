import type { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntilDrained } from '../../demo/local-stack.js';
import { KEPT_BODY_MAX_BYTES } from '../../functions/inbox/contract.js';
import { PermanentError, processBatch, processKafkaBatch, sql, type Database, type InboxOptions } from '../../functions/inbox/index.js';
import { ensureRoles } from '../../functions/inbox/migrations/inbox-roles.js';
import { kitGrants } from '../../functions/inbox/migrations/kit-grants.js';
import { KeptReplayRefusedError, replayKept } from '../../functions/inbox/operator/index.js';
import { pgDatabase } from '../../functions/inbox/pg/index.js';
import { sendMessages } from '../../functions/inbox/producer/index.js';
import { startEventSource } from '../../local/event-source/index.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { kafkaEvent, kafkaRecord } from '../support/kafka-events.js';
import { shipOptions as kafkaShipOptions } from '../support/kafka-inbox.js';
import { keptRows } from '../support/kept.js';
import { inboxRows, orderVersions, seedOrders, uniqueConsumer } from '../support/orders.js';
import { lambdaContext, sqsEvent, sqsRecord } from '../support/sqs-events.js';
import { queueName, startTestSqs, type TestSqs } from '../support/sqs.js';
import { thrown } from '../support/thrown.js';

type Pay = { orderId: string };

/** A consumer that rejects a payment until its wallet exists, then applies it (one version a payment). */
function paymentConsumer(db: Database, consumer: string) {
  const state = { walletReady: false, seen: [] as SQSRecord[] };
  const options: InboxOptions<Pay> = {
    consumer, db,
    handle: async (payment, { tx, record }) => {
      state.seen.push(record as SQSRecord);
      if (!state.walletReady) throw new PermanentError('wallet not found');
      await tx.query(sql`UPDATE orders SET version = version + 1 WHERE order_id = ${sql.uuid(payment.orderId)}`);
    },
  };
  return { state, options, name: consumer };
}

/** Runs the consumer behind the local event source until the queue is empty. */
async function drain(client: SQSClient, queueUrl: string, options: InboxOptions<Pay>): Promise<void> {
  const source = await startEventSource({ client, queueUrl, handler: (event, context) => processBatch(event, context, options), pollers: 1, waitTimeSeconds: 1, onError: () => undefined });
  try {
    await waitUntilDrained(client, queueUrl, { timeoutMs: 20_000, intervalMs: 50 });
  } finally {
    await source.stop();
  }
}

/** The database, failing the statement that marks a replay sent: a crash after the send. */
function crashingBeforeMarkedSent(db: Database): Database {
  return {
    query: (statement) => (statement.strings.join('?').includes("replay_state = 'sent'") ? Promise.reject(new Error('crash')) : db.query(statement)),
    transaction: (work) => db.transaction(work),
    close: () => db.close(),
  } as Database;
}

describe.each(drivers)('replaying kept messages on $name', (driver) => {
  const fx = useInboxDatabase(driver);
  let sqs: TestSqs;
  beforeAll(async () => { sqs = await startTestSqs(); });
  afterAll(async () => { await sqs.close(); });

  describe.each([false, true])('on a FIFO queue: %s', (fifo) => {
    /** A payment sent and rejected: its order, its key, its consumer and the kept row's id. */
    async function rejectedPayment() {
      const queueUrl = await sqs.createQueue(queueName('replay', fifo), fifo ? { FifoQueue: 'true' } : {});
      const consumer = paymentConsumer(fx.db, uniqueConsumer('replay'));
      const [orderId] = await seedOrders(fx.pool, 1);
      const key = `pay-${orderId}`;
      await sendMessages(sqs.client, queueUrl, [{
        body: { orderId }, key, ...(fifo ? { groupId: 'wallet-7' } : {}),
        attributes: { tenant: { DataType: 'String', StringValue: 'acme' }, blob: { DataType: 'Binary', BinaryValue: Uint8Array.from([0, 255, 7]) } },
      }]);
      await drain(sqs.client, queueUrl, consumer.options);
      const [kept] = await keptRows(fx.pool, consumer.name);
      return { queueUrl, consumer, orderId: orderId!, key, id: kept!.id };
    }
    const name = (consumer: ReturnType<typeof paymentConsumer>) => consumer.name;

    it('sends it back with its key, group and attributes, and the consumer applies it once', async () => {
      const { queueUrl, consumer, orderId, key, id } = await rejectedPayment();
      const original = consumer.state.seen[0]!;
      consumer.state.walletReady = true;

      expect(await replayKept(fx.db, id, { client: sqs.client })).toMatchObject({ kind: 'sent', key });
      await drain(sqs.client, queueUrl, consumer.options);
      expect(await replayKept(fx.db, id, { client: sqs.client })).toEqual({ kind: 'already-sent', key });
      await drain(sqs.client, queueUrl, consumer.options);

      expect(await orderVersions(fx.pool, [orderId])).toEqual(new Map([[orderId, 1]]));
      expect((await inboxRows(fx.pool, name(consumer))).get(key)?.status).toBe('processed');
      const replayed = consumer.state.seen[1]!;
      expect(consumer.state.seen).toHaveLength(2);
      expect(replayed.body).toBe(original.body);
      expect(replayed.messageAttributes).toEqual(original.messageAttributes);
      expect(replayed.attributes.MessageGroupId).toBe(original.attributes.MessageGroupId);
      expect(await keptRows(fx.pool, name(consumer))).toEqual([expect.objectContaining({ replay_state: 'sent', replays: 1 })]);
    });

    it('keeps it again when it fails again, and that one replays once the cause is fixed', async () => {
      const { queueUrl, consumer, orderId, key, id } = await rejectedPayment();

      await replayKept(fx.db, id, { client: sqs.client });
      await drain(sqs.client, queueUrl, consumer.options);
      const [first, again] = await keptRows(fx.pool, name(consumer));
      expect([first?.replay_state, again?.replay_state, again?.message_key, again?.body]).toEqual(['sent', null, key, first?.body]);
      expect((await inboxRows(fx.pool, name(consumer))).get(key)?.status).toBe('rejected');

      consumer.state.walletReady = true;
      await replayKept(fx.db, again!.id, { client: sqs.client });
      await drain(sqs.client, queueUrl, consumer.options);
      expect(await orderVersions(fx.pool, [orderId])).toEqual(new Map([[orderId, 1]]));
    });

    it('leaves it replayable when the send fails', async () => {
      const { queueUrl, consumer, orderId, id } = await rejectedPayment();
      consumer.state.walletReady = true;
      const down = { send: () => Promise.reject(Object.assign(new Error('queue unreachable'), { name: 'AccessDenied' })) } as unknown as SQSClient;

      const failed = await replayKept(fx.db, id, { client: down, queueUrl });

      expect(failed).toMatchObject({ kind: 'failed', error: expect.stringMatching(/queue unreachable/) });
      expect(await keptRows(fx.pool, name(consumer))).toEqual([expect.objectContaining({ replay_state: null, replay_error: expect.stringMatching(/queue unreachable/) })]);
      expect(await replayKept(fx.db, id, { client: sqs.client })).toMatchObject({ kind: 'sent' });
      await drain(sqs.client, queueUrl, consumer.options);
      expect(await orderVersions(fx.pool, [orderId])).toEqual(new Map([[orderId, 1]]));
    });

    it('after a crash between the send and its record, a second replay applies nothing twice', async () => {
      const { queueUrl, consumer, orderId, key, id } = await rejectedPayment();
      consumer.state.walletReady = true;

      expect(await thrown(replayKept(crashingBeforeMarkedSent(fx.db), id, { client: sqs.client }))).toMatchObject({ message: 'crash' });
      expect(await keptRows(fx.pool, name(consumer))).toEqual([expect.objectContaining({ replay_state: 'sending' })]);
      expect(await replayKept(fx.db, id, { client: sqs.client })).toMatchObject({ kind: 'sent' });
      await drain(sqs.client, queueUrl, consumer.options);
      expect(await replayKept(fx.db, id, { client: sqs.client })).toEqual({ kind: 'already-sent', key });

      expect(consumer.state.seen.length).toBeGreaterThanOrEqual(2);
      expect(await orderVersions(fx.pool, [orderId])).toEqual(new Map([[orderId, 1]]));
    });

    it('after a crash once the replay was applied, a second replay sends nothing and records it', async () => {
      const { queueUrl, consumer, orderId, key, id } = await rejectedPayment();
      consumer.state.walletReady = true;

      await thrown(replayKept(crashingBeforeMarkedSent(fx.db), id, { client: sqs.client }));
      await drain(sqs.client, queueUrl, consumer.options);

      expect(await replayKept(fx.db, id, { client: sqs.client })).toEqual({ kind: 'already-processed', key });
      expect(await keptRows(fx.pool, name(consumer))).toEqual([expect.objectContaining({ replay_state: 'sent' })]);
      expect(await orderVersions(fx.pool, [orderId])).toEqual(new Map([[orderId, 1]]));
    });
  });

  it('replays a body over the Data API\'s 64 KB a row and its 1 MiB a call whole: it is read in parts', async () => {
    const queueUrl = await sqs.createQueue(queueName('replay-long'));
    const consumer = paymentConsumer(fx.db, uniqueConsumer('replay-long'));
    const [orderId] = await seedOrders(fx.pool, 1);
    await sendMessages(sqs.client, queueUrl, [{ body: { orderId, note: 'é'.repeat(400_000) }, key: `pay-${orderId}` }]);
    await drain(sqs.client, queueUrl, consumer.options);
    const [kept] = await keptRows(fx.pool, consumer.name);
    consumer.state.walletReady = true;

    expect(await replayKept(fx.db, kept!.id, { client: sqs.client })).toMatchObject({ kind: 'sent' });
    await drain(sqs.client, queueUrl, consumer.options);

    // 800 KB: 25 parts, more than one answer holds in base64.
    expect(Buffer.byteLength(consumer.state.seen[0]!.body)).toBeGreaterThan(800_000);
    expect(consumer.state.seen.map((message) => message.body)).toEqual([consumer.state.seen[0]!.body, consumer.state.seen[0]!.body]);
    expect(await orderVersions(fx.pool, [orderId!])).toEqual(new Map([[orderId!, 1]]));
  });

  describe('what is not replayed, with the reason', () => {
    it('refuses a collision, a Kafka record and a body cut at the bound', async () => {
      const consumer = uniqueConsumer('refused');
      const [order] = await seedOrders(fx.pool, 1);
      const options: InboxOptions<Pay> = { consumer, db: fx.db, handle: async () => undefined };
      await processBatch(sqsEvent(sqsRecord({ orderId: order }, { key: 'reused' })), lambdaContext(), options);
      await processBatch(sqsEvent(sqsRecord({ orderId: 'another' }, { key: 'reused' })), lambdaContext(), options);
      await processBatch(sqsEvent(sqsRecord('x'.repeat(KEPT_BODY_MAX_BYTES + 1), { key: 'big' })), lambdaContext(), options);
      await processKafkaBatch(kafkaEvent([kafkaRecord('not json')]), lambdaContext(), kafkaShipOptions(fx.db, consumer, [], 'statement'));
      const [collision, cut, kafka] = await keptRows(fx.pool, consumer);

      const reasons = await Promise.all([collision, kafka, cut].map((row) => thrown(replayKept(fx.db, row!.id, { client: sqs.client }))));

      expect(reasons.every((error) => error instanceof KeptReplayRefusedError)).toBe(true);
      expect(reasons.map((error) => error.message)).toEqual([
        expect.stringMatching(/collision/), expect.stringMatching(/Kafka record.*idempotency-key header/), expect.stringMatching(new RegExp(`cut at ${KEPT_BODY_MAX_BYTES} of ${KEPT_BODY_MAX_BYTES + 1} bytes`)),
      ]);
    });
  });

  it('replays as the operator role, which may read kept messages, record replays and delete rejected inbox rows', async () => {
    const role = `kit_operator_${driver.name.replace('-', '_')}`;
    await ensureRoles(fx.db, [{ role, access: 'operator' }]);
    for (const grant of kitGrants(role, 'operator')) await fx.db.query(grant);
    const pool = new pg.Pool({ connectionString: fx.url, max: 1 });
    pool.on('connect', (client) => { void client.query(`SET ROLE ${role}`); });
    const operator = pgDatabase({ pool });
    try {
      const queueUrl = await sqs.createQueue(queueName('operator'));
      const consumer = paymentConsumer(fx.db, uniqueConsumer('operator'));
      const [orderId] = await seedOrders(fx.pool, 1);
      await sendMessages(sqs.client, queueUrl, [{ body: { orderId }, key: `pay-${orderId}` }]);
      await drain(sqs.client, queueUrl, consumer.options);
      const [kept] = await keptRows(fx.pool, consumer.name);
      consumer.state.walletReady = true;

      expect(await replayKept(operator, kept!.id, { client: sqs.client })).toMatchObject({ kind: 'sent' });
      await drain(sqs.client, queueUrl, consumer.options);

      expect(await orderVersions(fx.pool, [orderId!])).toEqual(new Map([[orderId, 1]]));
      expect((await operator.query(sql`SELECT current_user AS who`)).rows).toEqual([{ who: role }]);
    } finally {
      await pool.end();
    }
  });
});
