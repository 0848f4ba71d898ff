import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { InvalidEventError, processBatch, processKafkaBatch, type Outcome } from '../../functions/inbox/index.js';
import type { KafkaEvent } from '../../functions/inbox/kafka/index.js';
import type { KafkaEventRecord } from '../../local/kafka/index.js';
import { countingDatabase } from '../support/counting-database.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { kafkaMessageId, kindsOf, namedIds, offsetKey, shipOptions, type Ship } from '../support/kafka-inbox.js';
import { eventRecords, kafkaEvent, kafkaFailures, kafkaRecord } from '../support/kafka-events.js';
import { inboxRows, orderVersions, seedOrders, uniqueConsumer } from '../support/orders.js';
import { lambdaContext, sqsEvent, sqsRecord } from '../support/sqs-events.js';

const NO_FAILURES = { batchItemFailures: [] };
const base64 = (bytes: Buffer | string) => Buffer.from(bytes).toString('base64');

/** A record with headers of any shape, as a broken or hostile producer might send them. */
const withHeaders = (record: KafkaEventRecord, headers: unknown[]): KafkaEventRecord => ({ ...record, headers: headers as KafkaEventRecord['headers'] });

describe.each(drivers)('Kafka bad input on $name', (driver) => {
  const fx = useInboxDatabase(driver);
  const ship = (consumer: string, outcomes: Outcome[], extra: Parameters<typeof shipOptions>[4] = {}) => shipOptions(fx.db, consumer, outcomes, 'statement', extra);

  describe('a value that is not JSON', () => {
    it('is rejected with its parse error recorded under its key, acknowledged, and a redelivery is a duplicate', async () => {
      const consumer = uniqueConsumer('kjson');
      const outcomes: Outcome[] = [];
      const record = kafkaRecord('{"orderId": ', { headers: { 'idempotency-key': 'k-json' } });

      const first = await processKafkaBatch(kafkaEvent([record]), lambdaContext(), ship(consumer, outcomes));
      const again = await processKafkaBatch(kafkaEvent([record]), lambdaContext(), ship(consumer, outcomes));

      expect(first).toEqual(NO_FAILURES);
      expect(again).toEqual(NO_FAILURES);
      const row = (await inboxRows(fx.pool, consumer)).get('k-json');
      expect(row?.status).toBe('rejected');
      expect(row?.error).toMatch(/^SyntaxError: /);
      expect(outcomes.map((o) => o.kind)).toEqual(['rejected', 'duplicate']);
    });

    it.each([
      ['a tombstone (null value)', null, /^SyntaxError: /],
      ['text that is not base64', '%%%%', /^TypeError: the value is not base64/],
      ['bytes that are not UTF-8, with a NUL', base64(Buffer.from([0xff, 0xfe, 0x7b, 0x00])), /^TypeError: /],
      ['JSON whose string holds bytes that are not UTF-8', base64(Buffer.concat([Buffer.from('{"orderId":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')])), /^TypeError: /],
      ['an empty value', '', /^SyntaxError: /],
    ])('%s: rejected under <topic>:<partition>:<offset> with the decoding error, acknowledged, no effect', async (_label, value, reason) => {
      const consumer = uniqueConsumer('kvalue');
      const [orderId] = await seedOrders(fx.pool, 1);
      const outcomes: Outcome[] = [];
      const record = { ...kafkaRecord({ orderId }), value } as KafkaEventRecord;

      const response = await processKafkaBatch(kafkaEvent([record]), lambdaContext(), ship(consumer, outcomes));

      expect(response).toEqual(NO_FAILURES);
      const rows = await inboxRows(fx.pool, consumer);
      expect([...rows.keys()]).toEqual([offsetKey(record)]);
      expect(rows.get(offsetKey(record))).toMatchObject({ status: 'rejected', error: expect.stringMatching(reason) });
      expect(outcomes).toMatchObject([{ kind: 'rejected', messageId: kafkaMessageId(record), key: offsetKey(record) }]);
      expect((await orderVersions(fx.pool, [orderId!])).get(orderId!)).toBe(0);
    });
  });

  describe('an idempotency-key header that is not text', () => {
    it.each([
      ['a byte over 255', [300]],
      ['a byte under -128, the lowest Java byte', [65, -129]],
      ['a fraction', [65, 1.5]],
      ['a number as text', [65, '66']],
      ['a string, not bytes', 'ship-1'],
      ['null', null],
    ])('%s: rejected under <topic>:<partition>:<offset> with the reason, acknowledged, no effect', async (_label, bytes) => {
      const consumer = uniqueConsumer('kheader');
      const [orderId] = await seedOrders(fx.pool, 1);
      const outcomes: Outcome[] = [];
      const record = withHeaders(kafkaRecord({ orderId }), [{ 'idempotency-key': bytes }]);

      const response = await processKafkaBatch(kafkaEvent([record]), lambdaContext(), ship(consumer, outcomes));

      expect(response).toEqual(NO_FAILURES);
      const row = (await inboxRows(fx.pool, consumer)).get(offsetKey(record));
      expect(row?.status).toBe('rejected');
      expect(row?.error).toBe('InvalidKeyError: The message has no usable idempotency key: reading the default key threw TypeError: header idempotency-key is not a list of bytes (whole numbers from -128 to 255).');
      expect(outcomes[0]).toMatchObject({ kind: 'rejected', messageId: kafkaMessageId(record), key: undefined });
      expect((await orderVersions(fx.pool, [orderId!])).get(orderId!)).toBe(0);
    });

    it.each([
      ['bytes that are not UTF-8', [0x6b, 0xff], 'reading the default key threw TypeError: header idempotency-key is not UTF-8 text'],
      ['a NUL byte, which PostgreSQL text cannot hold', [0x6b, 0x00, 0x31], 'the key holds a NUL character, which PostgreSQL text cannot store'],
    ])('%s: rejected under <topic>:<partition>:<offset>, so the partition is not blocked for ever', async (_label, bytes, reason) => {
      const consumer = uniqueConsumer('kbytes');
      const [orderId, nextId] = await seedOrders(fx.pool, 2);
      const outcomes: Outcome[] = [];
      const record = withHeaders(kafkaRecord({ orderId }), [{ 'idempotency-key': bytes }]);
      const next = kafkaRecord({ orderId: nextId });

      const response = await processKafkaBatch(kafkaEvent([record, next]), lambdaContext(), ship(consumer, outcomes));

      expect(response).toEqual(NO_FAILURES);
      expect(kindsOf([record, next], outcomes)).toEqual(['rejected', 'processed']);
      expect((await inboxRows(fx.pool, consumer)).get(offsetKey(record))).toMatchObject({
        status: 'rejected', error: `InvalidKeyError: The message has no usable idempotency key: ${reason}.`,
      });
      expect(await orderVersions(fx.pool, [orderId!, nextId!])).toEqual(new Map([[orderId, 0], [nextId, 1]]));
    });

    it('an empty header is an empty key: rejected under <topic>:<partition>:<offset>', async () => {
      const consumer = uniqueConsumer('kempty');
      const record = withHeaders(kafkaRecord({ orderId: 'x' }), [{ 'idempotency-key': [] }]);

      await processKafkaBatch(kafkaEvent([record]), lambdaContext(), ship(consumer, []));

      expect((await inboxRows(fx.pool, consumer)).get(offsetKey(record))).toMatchObject({
        status: 'rejected', error: 'InvalidKeyError: The message has no usable idempotency key: the key is empty.',
      });
    });

    it('bad bytes in another header do not matter, and of a header sent twice the first counts', async () => {
      const consumer = uniqueConsumer('kother');
      const [orderId] = await seedOrders(fx.pool, 1);
      const outcomes: Outcome[] = [];
      const text = (s: string) => [...Buffer.from(s)];
      const record = withHeaders(kafkaRecord({ orderId }), [{ trace: [999] }, { 'idempotency-key': text('first') }, { 'idempotency-key': text('second') }]);

      const response = await processKafkaBatch(kafkaEvent([record]), lambdaContext(), ship(consumer, outcomes));

      expect(response).toEqual(NO_FAILURES);
      expect(outcomes).toMatchObject([{ kind: 'processed', key: 'first' }]);
      expect((await orderVersions(fx.pool, [orderId!])).get(orderId!)).toBe(1);
    });
  });

  describe('a missing, empty or oversized key', () => {
    it.each([
      ['an oversized header', {}, { 'idempotency-key': 'k'.repeat(513) }],
      ['an empty key from the key function', { key: () => '' }, {}],
      ['an oversized key from the key function', { key: () => 'k'.repeat(513) }, {}],
      ['a key function that returns no string', { key: () => 42 as unknown as string }, {}],
      ['a throwing key function', { key: () => { throw new Error('no header'); } }, {}],
    ])('%s: rejected under <topic>:<partition>:<offset> with the reason, acknowledged', async (_label, extra, headers) => {
      const consumer = uniqueConsumer('kkey');
      const outcomes: Outcome[] = [];
      const [orderId] = await seedOrders(fx.pool, 1);
      const record = kafkaRecord({ orderId }, { headers });

      const response = await processKafkaBatch(kafkaEvent([record]), lambdaContext(), ship(consumer, outcomes, extra));

      expect(response).toEqual(NO_FAILURES);
      const rows = await inboxRows(fx.pool, consumer);
      expect([...rows.keys()]).toEqual([offsetKey(record)]);
      expect(rows.get(offsetKey(record))?.status).toBe('rejected');
      expect(rows.get(offsetKey(record))?.error).toMatch(/^InvalidKeyError: The message has no usable idempotency key/);
      expect(outcomes).toMatchObject([{ kind: 'rejected', messageId: kafkaMessageId(record), key: undefined }]);
      expect((await orderVersions(fx.pool, [orderId!])).get(orderId!)).toBe(0);
    });

    it('accepts a header key of exactly 512 characters', async () => {
      const consumer = uniqueConsumer('kkey512');
      const outcomes: Outcome[] = [];
      const [orderId] = await seedOrders(fx.pool, 1);

      await processKafkaBatch(kafkaEvent([kafkaRecord({ orderId }, { headers: { 'idempotency-key': 'k'.repeat(512) } })]), lambdaContext(), ship(consumer, outcomes));

      expect(outcomes).toMatchObject([{ kind: 'processed', key: 'k'.repeat(512) }]);
    });
  });

  describe('an event that is not a Kafka batch', () => {
    const good = () => kafkaRecord({ orderId: '00000000-0000-4000-8000-000000000000' });
    const inGood = (extra: Record<string, unknown[]>) => {
      const event = kafkaEvent([good()]);
      return { ...event, records: { ...event.records, ...extra } };
    };
    const sqs = sqsEvent(sqsRecord({ orderId: 'x' }));

    it.each([
      ['null', null, /got null/],
      ['a string', 'orders', /got string/],
      ['no records map', { eventSource: 'aws:kafka' }, /it has no records map/],
      ['records as an array', { eventSource: 'aws:kafka', records: [good()] }, /it has no records map/],
      ['an SQS event', sqs, /it is an SQS batch \(a Records array\): use processBatch or inbox\(\)/],
      ['an SQS event with a records map beside it', { ...sqs, records: kafkaEvent([good()]).records }, /it is an SQS batch/],
      ['another event source', { ...kafkaEvent([good()]), eventSource: 'aws:sqs' }, /it comes from aws:sqs/],
      ['records of a partition not in a list', { ...kafkaEvent([]), records: { 'orders-0': good() } }, /records of orders-0 are not a list/],
      ['a record that is not an object', inGood({ 'orders-7': [null] }), /record 0 of orders-7 is not an object/],
      // [record, , record]: map skips the hole, which would drop it unseen.
      ['the records of a partition with a hole', inGood({ 'orders-7': Object.assign(new Array(3), { 0: { ...good(), partition: 7 }, 2: { ...good(), partition: 7 } }) }), /record 1 of orders-7 is not an object/],
      ['a record without a topic', inGood({ 'orders-7': [{ ...good(), partition: 7, topic: '' }] }), /record 0 of orders-7 has no topic/],
      ['a partition that is not a whole number', inGood({ 'orders-7': [{ ...good(), partition: '7' }] }), /has no partition number/],
      ['a negative offset', inGood({ 'orders-7': [{ ...good(), partition: 7, offset: -1 }] }), /has no offset/],
      ['a value that is not text', inGood({ 'orders-7': [{ ...good(), partition: 7, value: 42 }] }), /has a value that is not base64 text/],
      ['a record filed under another partition', inGood({ 'orders-7': [{ ...good(), partition: 8 }] }), /record 0 of orders-7 belongs to orders-8/],
    ])('%s: refused with InvalidEventError before the database is touched', async (_label, event, message) => {
      const consumer = uniqueConsumer('kevent');
      const counted = countingDatabase(fx.db);
      const options = { ...ship(consumer, []), db: counted.db };

      const refused = processKafkaBatch(event as KafkaEvent, lambdaContext(), options);

      await expect(refused).rejects.toThrow(InvalidEventError);
      await expect(refused).rejects.toThrow(message);
      expect(counted.calls()).toBe(0);
      expect(counted.transactions()).toBe(0);
      expect((await inboxRows(fx.pool, consumer)).size).toBe(0);
    });

    it('a Kafka event given to the SQS entry point is refused the same way, with no database call', async () => {
      const counted = countingDatabase(fx.db);

      const refused = processBatch<Ship>(kafkaEvent([good()]) as unknown as SQSEvent, lambdaContext(), {
        consumer: uniqueConsumer('ksqs'), db: counted.db, handle: async () => undefined,
      });

      await expect(refused).rejects.toThrow(InvalidEventError);
      await expect(refused).rejects.toThrow(/it comes from aws:kafka and has no Records array/);
      expect(counted.calls()).toBe(0);
    });

    it('answers an empty batch, or one with an empty partition, with no failures and no database call', async () => {
      const counted = countingDatabase(fx.db);
      const options = { ...ship(uniqueConsumer('kempty'), []), db: counted.db };

      expect(await processKafkaBatch(kafkaEvent([]), lambdaContext(), options)).toEqual(NO_FAILURES);
      expect(await processKafkaBatch({ ...kafkaEvent([]), records: { 'orders-0': [] } }, lambdaContext(), options)).toEqual(NO_FAILURES);
      expect(counted.calls()).toBe(0);
    });

    it('takes a self-managed Kafka event as it takes an MSK one', async () => {
      const consumer = uniqueConsumer('kself');
      const [orderId] = await seedOrders(fx.pool, 1);
      const outcomes: Outcome[] = [];

      const response = await processKafkaBatch(kafkaEvent([kafkaRecord({ orderId })], { eventSource: 'SelfManagedKafka' }), lambdaContext(), ship(consumer, outcomes));

      expect(response).toEqual(NO_FAILURES);
      expect(outcomes.map((o) => o.kind)).toEqual(['processed']);
      expect((await orderVersions(fx.pool, [orderId!])).get(orderId!)).toBe(1);
    });
  });

  describe('nothing is lost', () => {
    it('ends every record of a mixed batch applied, rejected with its row, or named in the response, and never two of these', async () => {
      const consumer = uniqueConsumer('kaccount');
      const ids = await seedOrders(fx.pool, 4);
      const outcomes: Outcome[] = [];
      const p0 = [
        kafkaRecord({ orderId: ids[0] }, { partition: 0 }),
        kafkaRecord('not json', { partition: 0 }),
        kafkaRecord({ orderId: 'not-a-uuid' }, { partition: 0 }),
        kafkaRecord({ orderId: ids[1] }, { partition: 0 }),
      ];
      const p1 = [
        withHeaders(kafkaRecord({ orderId: ids[2] }, { partition: 1 }), [{ 'idempotency-key': [256] }]),
        kafkaRecord({ orderId: ids[2] }, { partition: 1 }),
        kafkaRecord({ orderId: ids[3] }, { partition: 1, headers: { 'idempotency-key': 'k'.repeat(600) } }),
        kafkaRecord({ orderId: ids[3] }, { partition: 1 }),
      ];
      const event = kafkaEvent([...p0, ...p1]);

      const response = await processKafkaBatch(event, lambdaContext(), ship(consumer, outcomes));

      expect(kindsOf([...p0, ...p1], outcomes)).toEqual(['processed', 'rejected', 'failed', 'skipped', 'rejected', 'processed', 'rejected', 'processed']);
      expect(response).toEqual(kafkaFailures(p0[2]!, p0[3]!));
      const named = new Set(namedIds(response));
      const rows = await inboxRows(fx.pool, consumer);
      for (const record of eventRecords(event)) {
        const row = rows.get(offsetKey(record));
        const committed = row?.status === 'processed' || row?.status === 'rejected';
        expect(named.has(kafkaMessageId(record)) !== committed, `${kafkaMessageId(record)}: named ${named.has(kafkaMessageId(record))}, row ${row?.status}`).toBe(true);
      }
      const versions = await orderVersions(fx.pool, ids);
      expect(ids.map((id) => versions.get(id))).toEqual([1, 0, 1, 1]);
    });
  });
});
