import { describe, expect, it } from 'vitest';
import { processKafkaBatch, type Outcome } from '../../functions/inbox/index.js';
import { kafkaHeader } from '../../functions/inbox/kafka/index.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { kafkaEvent, kafkaRecord } from '../support/kafka-events.js';
import { MODES, redelivered, shipOptions } from '../support/kafka-inbox.js';
import { inboxRows, orderVersions, seedOrders, uniqueConsumer } from '../support/orders.js';
import { lambdaContext } from '../support/sqs-events.js';

// 'Zürich-1' as Lambda sends it: Java bytes are signed, so ü (UTF-8 c3 bc) arrives as -61, -68.
const ZURICH_SIGNED = [90, -61, -68, 114, 105, 99, 104, 45, 49];
const ZURICH_UNSIGNED = [...Buffer.from('Zürich-1', 'utf8')];

const withKeyBytes = (orderId: string, bytes: number[]) => ({ ...kafkaRecord({ orderId }), headers: [{ 'idempotency-key': bytes }] });

describe('a header value is read as the Java bytes Lambda sends', () => {
  it('maps signed bytes (-128..-1) and unsigned ones (128..255) to the same text', () => {
    expect(kafkaHeader({ headers: [{ 'idempotency-key': ZURICH_SIGNED }] }, 'idempotency-key')).toBe('Zürich-1');
    expect(kafkaHeader({ headers: [{ 'idempotency-key': ZURICH_UNSIGNED }] }, 'idempotency-key')).toBe('Zürich-1');
    expect(kafkaHeader({ headers: [{ e: [-61, -85] }] }, 'e')).toBe('ë');
  });

  it.each([
    ['a byte under -128', [-129]],
    ['a byte over 255', [256]],
    ['a fraction', [1.5]],
    ['a hole in the list', [65, , 66]], // eslint-disable-line no-sparse-arrays
    ['a string', 'Zürich-1'],
  ])('refuses %s with a TypeError that says what a byte is', (_label, value) => {
    expect(() => kafkaHeader({ headers: [{ k: value as number[] }] }, 'k')).toThrow(/^header k is not a list of bytes \(whole numbers from -128 to 255\)$/);
  });
});

describe.each(drivers)('a non-ASCII idempotency-key header on $name', (driver) => {
  const fx = useInboxDatabase(driver);

  describe.each(MODES)('in %s mode', (mode) => {
    it('is applied exactly once under its text, through a redelivery and a producer retry at a new offset', async () => {
      const consumer = uniqueConsumer('kutf8');
      const [orderId] = await seedOrders(fx.pool, 1);
      const outcomes: Outcome[] = [];
      const options = shipOptions(fx.db, consumer, outcomes, mode);
      const sent = withKeyBytes(orderId!, ZURICH_SIGNED);
      const retried = withKeyBytes(orderId!, ZURICH_SIGNED);

      const responses = [
        await processKafkaBatch(kafkaEvent([sent]), lambdaContext(), options),
        await processKafkaBatch(kafkaEvent([redelivered(sent)]), lambdaContext(), options),
        await processKafkaBatch(kafkaEvent([retried]), lambdaContext(), options),
      ];

      expect(responses).toEqual([{ batchItemFailures: [] }, { batchItemFailures: [] }, { batchItemFailures: [] }]);
      expect(outcomes.map((o) => [o.kind, o.key])).toEqual([['processed', 'Zürich-1'], ['duplicate', 'Zürich-1'], ['duplicate', 'Zürich-1']]);
      const rows = await inboxRows(fx.pool, consumer);
      expect([...rows.keys()]).toEqual(['Zürich-1']);
      expect(rows.get('Zürich-1')?.status).toBe('processed');
      expect((await orderVersions(fx.pool, [orderId!])).get(orderId!)).toBe(1);
    });
  });
});
