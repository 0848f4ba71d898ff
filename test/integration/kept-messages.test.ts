import { describe, expect, it } from 'vitest';
import { KEPT_BODY_MAX_BYTES } from '../../functions/inbox/contract.js';
import { PermanentError, processBatch, processKafkaBatch, sql, type InboxOptions } from '../../functions/inbox/index.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { kafkaEvent, kafkaRecord } from '../support/kafka-events.js';
import { shipOptions as kafkaShipOptions } from '../support/kafka-inbox.js';
import { keptRows } from '../support/kept.js';
import { inboxRows, seedOrders, uniqueConsumer } from '../support/orders.js';
import { failedIds, lambdaContext, sqsEvent, sqsRecord } from '../support/sqs-events.js';

type Ship = { orderId: string };
const MODES = ['statement', 'transaction'] as const;
const update = (m: Ship) => sql`UPDATE orders SET version = version + 1 WHERE order_id = ${sql.uuid(m.orderId)}`;

function shipOptions(db: InboxOptions<Ship>['db'], consumer: string, mode: (typeof MODES)[number], extra: Partial<InboxOptions<Ship>> = {}): InboxOptions<Ship> {
  return mode === 'statement'
    ? { consumer, db, statement: update, ...extra } as InboxOptions<Ship>
    : { consumer, db, handle: async (m, { tx }) => { await tx.query(update(m)); }, ...extra } as InboxOptions<Ship>;
}

describe.each(drivers)('kept messages on $name', (driver) => {
  const fx = useInboxDatabase(driver);

  describe.each(MODES)('in %s mode', (mode) => {
    it('keeps a body that does not parse byte for byte, with its attributes, group and deduplication id, beside its rejection', async () => {
      const consumer = uniqueConsumer('kept-parse');
      const body = '{"orderId": "ünïcödé ✓ 𝄞", broken';
      const record = sqsRecord(body, { key: 'order-1', groupId: 'customer-7', deduplicationId: 'dedup-1' });
      record.messageAttributes.tenant = { dataType: 'String', stringValue: 'acme', stringListValues: [], binaryListValues: [] };

      const response = await processBatch(sqsEvent(record), lambdaContext(), shipOptions(fx.db, consumer, mode));

      expect(failedIds(response)).toEqual([]);
      expect((await inboxRows(fx.pool, consumer)).get('order-1')?.status).toBe('rejected');
      const [kept, ...more] = await keptRows(fx.pool, consumer);
      expect(more).toEqual([]);
      expect(kept).toMatchObject({
        message_key: 'order-1', kept_as: 'rejected', source: 'sqs', body, body_encoding: 'utf8',
        body_bytes: Buffer.byteLength(body), kept_bytes: Buffer.byteLength(body), replay_state: null,
      });
      expect(kept!.reason).toMatch(/SyntaxError/);
      expect(kept!.origin).toEqual({
        messageId: record.messageId, eventSourceARN: record.eventSourceARN,
        messageAttributes: record.messageAttributes, messageGroupId: 'customer-7', messageDeduplicationId: 'dedup-1',
      });
    });

    it('keeps a message its handler rejects with a PermanentError', async () => {
      const consumer = uniqueConsumer('kept-permanent');
      const [order] = await seedOrders(fx.pool, 1);
      const refuse = () => { throw new PermanentError('wallet not found'); };
      const options = mode === 'statement'
        ? { consumer, db: fx.db, statement: refuse } as InboxOptions<Ship>
        : { consumer, db: fx.db, handle: async () => refuse() } as InboxOptions<Ship>;
      const record = sqsRecord({ orderId: order }, { key: 'pay-1' });

      await processBatch(sqsEvent(record), lambdaContext(), options);

      expect(await keptRows(fx.pool, consumer)).toEqual([expect.objectContaining({ message_key: 'pay-1', kept_as: 'rejected', body: record.body, reason: expect.stringMatching(/wallet not found/) })]);
    });

    it('keeps a collision\'s body, and again at each further collision of the key', async () => {
      const consumer = uniqueConsumer('kept-collision');
      const [first, second, third] = await seedOrders(fx.pool, 3);
      const options = shipOptions(fx.db, consumer, mode);

      await processBatch(sqsEvent(sqsRecord({ orderId: first }, { key: 'reused' })), lambdaContext(), options);
      const collided = [sqsRecord({ orderId: second }, { key: 'reused' }), sqsRecord({ orderId: third }, { key: 'reused' })];
      for (const record of collided) await processBatch(sqsEvent(record), lambdaContext(), options);

      const kept = await keptRows(fx.pool, consumer);
      expect(kept.map((row) => [row.message_key, row.kept_as, row.body])).toEqual(collided.map((record) => ['reused', 'collision', record.body]));
      expect(kept[0]!.reason).toMatch(/another body/);
    });
  });

  it('keeps nothing for a duplicate of what was processed or rejected', async () => {
    const consumer = uniqueConsumer('kept-duplicate');
    const [order] = await seedOrders(fx.pool, 1);
    const options = shipOptions(fx.db, consumer, 'transaction');
    const processed = sqsRecord({ orderId: order }, { key: 'ok' });
    const rejected = sqsRecord('not json', { key: 'bad' });

    await processBatch(sqsEvent(processed, rejected), lambdaContext(), options);
    await processBatch(sqsEvent(processed, rejected), lambdaContext(), options);

    expect((await keptRows(fx.pool, consumer)).map((row) => row.message_key)).toEqual(['bad']);
  });

  it('keeps a message without a usable key under its messageId', async () => {
    const consumer = uniqueConsumer('kept-key');
    const record = sqsRecord({ orderId: 'x' }, { key: 'k'.repeat(600) });

    await processBatch(sqsEvent(record), lambdaContext(), shipOptions(fx.db, consumer, 'statement'));

    expect(await keptRows(fx.pool, consumer)).toEqual([expect.objectContaining({ message_key: record.messageId, kept_as: 'rejected', body: record.body, reason: expect.stringMatching(/600 characters/) })]);
  });

  it('cuts a body over the bound at a whole character and says how much it cut', async () => {
    const consumer = uniqueConsumer('kept-cut');
    const body = `${'a'.repeat(KEPT_BODY_MAX_BYTES - 1)}é and more`;
    const record = sqsRecord(body, { key: 'big' });

    await processBatch(sqsEvent(record), lambdaContext(), shipOptions(fx.db, consumer, 'statement'));

    const [kept] = await keptRows(fx.pool, consumer);
    expect(kept).toMatchObject({ body_bytes: Buffer.byteLength(body), kept_bytes: KEPT_BODY_MAX_BYTES - 1 });
    expect(kept!.body).toBe('a'.repeat(KEPT_BODY_MAX_BYTES - 1));
  });

  describe.each(MODES)('Kafka, in %s mode', (mode) => {
    it('keeps a value that does not parse as its bytes in base64, with topic, partition, offset, key and headers', async () => {
      const consumer = uniqueConsumer('kept-kafka');
      const record = kafkaRecord('{"orderId": ✗', { topic: 'payments', partition: 3, key: 'wallet-9', headers: { 'idempotency-key': 'pay-9', trace: 'ë' } });

      await processKafkaBatch(kafkaEvent([record]), lambdaContext(), kafkaShipOptions(fx.db, consumer, [], mode));

      const [kept] = await keptRows(fx.pool, consumer);
      expect(kept).toMatchObject({ message_key: 'pay-9', kept_as: 'rejected', source: 'kafka', body: record.value, body_encoding: 'base64', body_bytes: Buffer.from(record.value, 'base64').length });
      expect(Buffer.from(kept!.body, 'base64').toString('utf8')).toBe('{"orderId": ✗');
      expect(kept!.origin).toEqual({ topic: 'payments', partition: 3, offset: record.offset, timestamp: record.timestamp, key: record.key, headers: record.headers });
    });
  });
});
