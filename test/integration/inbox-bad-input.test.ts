import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { InvalidEventError, processBatch, sql, type InboxCommonOptions, type Outcome, type StatementModeOptions } from '../../functions/inbox/index.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { inboxRows, orderVersions, seedOrders, uniqueConsumer } from '../support/orders.js';
import { failedIds, lambdaContext, sqsEvent, sqsRecord } from '../support/sqs-events.js';

type Ship = { orderId: string };

describe.each(drivers)('bad input on $name', (driver) => {
  const fx = useInboxDatabase(driver);

  const ship = (consumer: string, outcomes: Outcome[], extra: Partial<InboxCommonOptions<Ship>> = {}): StatementModeOptions<Ship> => ({
    consumer, db: fx.db, onOutcome: (o) => outcomes.push(o),
    statement: (m) => sql`UPDATE orders SET version = version + 1 WHERE order_id = ${sql.uuid(m.orderId)}`,
    ...extra,
  });

  describe('a body that is not JSON', () => {
    it('is rejected with its parse error recorded under its key, acknowledged, and a redelivery is a duplicate', async () => {
      const consumer = uniqueConsumer('json');
      const outcomes: Outcome[] = [];
      const record = sqsRecord('{"orderId": ', { key: 'k-json' });

      const response = await processBatch(sqsEvent(record, record), lambdaContext(), ship(consumer, outcomes));

      expect(failedIds(response)).toEqual([]);
      const row = (await inboxRows(fx.pool, consumer)).get('k-json');
      expect(row?.status).toBe('rejected');
      expect(row?.error).toMatch(/^SyntaxError: /);
      expect(outcomes.map((o) => o.kind).sort()).toEqual(['duplicate', 'rejected']);
    });
  });

  describe('a missing, empty or oversized key', () => {
    it.each([
      ['empty', () => ''],
      ['oversized', () => 'k'.repeat(513)],
      ['not a string', () => 42 as unknown as string],
      ['a throwing key function', () => { throw new Error('no attribute'); }],
    ])('%s: rejected under its messageId with the reason, acknowledged', async (_label, key) => {
      const consumer = uniqueConsumer('key');
      const outcomes: Outcome[] = [];
      const [orderId] = await seedOrders(fx.pool, 1);
      const record = sqsRecord({ orderId });

      const response = await processBatch(sqsEvent(record), lambdaContext(), ship(consumer, outcomes, { key }));

      expect(failedIds(response)).toEqual([]);
      const row = (await inboxRows(fx.pool, consumer)).get(record.messageId);
      expect(row?.status).toBe('rejected');
      expect(row?.error).toMatch(/^InvalidKeyError: The message has no usable idempotency key/);
      expect(outcomes[0]).toMatchObject({ kind: 'rejected', messageId: record.messageId, key: undefined });
      expect((await orderVersions(fx.pool, [orderId!])).get(orderId!)).toBe(0);
    });

    it('accepts a key of exactly 512 characters', async () => {
      const consumer = uniqueConsumer('key512');
      const outcomes: Outcome[] = [];
      const [orderId] = await seedOrders(fx.pool, 1);

      await processBatch(sqsEvent(sqsRecord({ orderId }, { key: 'k'.repeat(512) })), lambdaContext(), ship(consumer, outcomes));

      expect(outcomes[0]?.kind).toBe('processed');
    });
  });

  describe('an event that is not an SQS batch', () => {
    it.each([
      ['no Records array', {}],
      ['Records not an array', { Records: 'x' }],
      ['a record without messageId', sqsEvent({ ...sqsRecord({}), messageId: undefined as unknown as string })],
      ['a record with an empty messageId', sqsEvent({ ...sqsRecord({}), messageId: '' })],
      ['a record without body', sqsEvent({ ...sqsRecord({}), body: undefined as unknown as string })],
      ['a record from another source', sqsEvent({ ...sqsRecord({}), eventSource: 'aws:kinesis' })],
      ['null', null],
    ])('%s: refused with InvalidEventError before any record is processed', async (_label, event) => {
      const consumer = uniqueConsumer('event');
      const [orderId] = await seedOrders(fx.pool, 1);
      const good = sqsRecord({ orderId });
      const withGood = event && Array.isArray((event as SQSEvent).Records) ? { Records: [good, ...(event as SQSEvent).Records] } : event;

      await expect(processBatch(withGood as SQSEvent, lambdaContext(), ship(consumer, []))).rejects.toThrow(InvalidEventError);

      expect((await orderVersions(fx.pool, [orderId!])).get(orderId!)).toBe(0);
      expect((await inboxRows(fx.pool, consumer)).size).toBe(0);
    });

    it('a Records array with a hole ([record, , record]): refused with InvalidEventError, not a TypeError, before any record is processed', async () => {
      const consumer = uniqueConsumer('hole');
      const [first, last] = await seedOrders(fx.pool, 2);
      const holed = { Records: Object.assign(new Array(3), { 0: sqsRecord({ orderId: first }), 2: sqsRecord({ orderId: last }) }) };

      await expect(processBatch(holed as SQSEvent, lambdaContext(), ship(consumer, []))).rejects.toThrow(InvalidEventError);
      await expect(processBatch(holed as SQSEvent, lambdaContext(), ship(consumer, []))).rejects.toThrow(/record 1 is not an object/);

      expect(await orderVersions(fx.pool, [first!, last!])).toEqual(new Map([[first, 0], [last, 0]]));
      expect((await inboxRows(fx.pool, consumer)).size).toBe(0);
    });

    it('answers an empty Records array with no failures', async () => {
      const response = await processBatch(sqsEvent(), lambdaContext(), ship(uniqueConsumer('empty'), []));
      expect(response).toEqual({ batchItemFailures: [] });
    });
  });

  describe('nothing is lost', () => {
    it('ends every record of a mixed batch applied, rejected with its row, or reported failed, never with an empty itemIdentifier', async () => {
      const consumer = uniqueConsumer('account');
      const ids = await seedOrders(fx.pool, 3);
      const outcomes: Outcome[] = [];
      const records = [
        sqsRecord({ orderId: ids[0] }),
        sqsRecord('not json'),
        sqsRecord({ orderId: 'not-a-uuid' }),
        sqsRecord({ orderId: ids[1] }, { key: '' }),
        sqsRecord({ orderId: ids[2] }),
      ];

      const response = await processBatch(sqsEvent(...records), lambdaContext(), ship(consumer, outcomes));

      const failed = new Set(failedIds(response));
      const rows = await inboxRows(fx.pool, consumer);
      for (const record of records) {
        const outcome = outcomes.find((o) => o.messageId === record.messageId);
        const rowKey = outcome?.key ?? record.messageId;
        const accounted = failed.has(record.messageId) || rows.get(rowKey)?.status === 'processed' || rows.get(rowKey)?.status === 'rejected';
        expect(accounted, `record ${record.messageId} (${outcome?.kind})`).toBe(true);
      }
      expect(records.map((r) => outcomes.find((o) => o.messageId === r.messageId)?.kind)).toEqual(['processed', 'rejected', 'failed', 'rejected', 'processed']);
      // Exactly the record that did not commit, by its own messageId: never an empty or unknown identifier.
      expect(failedIds(response)).toEqual([records[2]!.messageId]);
    });
  });
});
