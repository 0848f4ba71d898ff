import { describe, expect, it, vi } from 'vitest';
import { processKafkaBatch, type Outcome } from '../../functions/inbox/index.js';
import { payloadHash } from '../../functions/inbox/claim/payload-hash.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { MODES, offsetKey, shipOptions } from '../support/kafka-inbox.js';
import { kafkaEvent, kafkaRecord } from '../support/kafka-events.js';
import { inboxRows, orderVersions, seedOrders, uniqueConsumer } from '../support/orders.js';
import { lambdaContext } from '../support/sqs-events.js';

const silentLogger = () => ({ debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() });

describe.each(drivers)('Kafka key collisions on $name', (driver) => {
  const fx = useInboxDatabase(driver);

  describe.each(MODES)('in %s mode', (mode) => {
    it('acknowledges a known idempotency-key header with another value without effect, reports a collision and logs it at error level', async () => {
      const consumer = uniqueConsumer('kcollide');
      const [first, second] = await seedOrders(fx.pool, 2);
      const outcomes: Outcome[] = [];
      const logger = silentLogger();
      const options = shipOptions(fx.db, consumer, outcomes, mode, { logger });
      const original = kafkaRecord({ orderId: first }, { headers: { 'idempotency-key': 'reused' } });
      const reuse = kafkaRecord({ orderId: second }, { headers: { 'idempotency-key': 'reused' } });

      await processKafkaBatch(kafkaEvent([original]), lambdaContext(), options);
      const response = await processKafkaBatch(kafkaEvent([reuse]), lambdaContext(), options);

      expect(response).toEqual({ batchItemFailures: [] });
      expect(outcomes.map((o) => o.kind)).toEqual(['processed', 'collision']);
      expect(await orderVersions(fx.pool, [first!, second!])).toEqual(new Map([[first, 1], [second, 0]]));
      expect(logger.error).toHaveBeenCalledTimes(1);
      expect(logger.error).toHaveBeenCalledWith(expect.stringMatching(/different body/), expect.objectContaining({
        key: 'reused', outcome: 'collision', lane: 'orders-0', messageId: `orders-0@${reuse.offset}`,
      }));
      // The row keeps the first value's hash: the hash is of the value's bytes, not of the headers.
      expect((await inboxRows(fx.pool, consumer)).get('reused')?.payload_hash).toBe(payloadHash(Buffer.from(original.value, 'base64')));
    });

    it('sees the same value under the same header with other headers beside it as a duplicate, not a collision', async () => {
      const consumer = uniqueConsumer('kheaders');
      const [orderId] = await seedOrders(fx.pool, 1);
      const outcomes: Outcome[] = [];
      const options = shipOptions(fx.db, consumer, outcomes, mode);

      await processKafkaBatch(kafkaEvent([kafkaRecord({ orderId }, { headers: { 'idempotency-key': 'same', trace: 'a' } })]), lambdaContext(), options);
      await processKafkaBatch(kafkaEvent([kafkaRecord({ orderId }, { headers: { trace: 'b', 'idempotency-key': 'same' } })]), lambdaContext(), options);

      expect(outcomes.map((o) => o.kind)).toEqual(['processed', 'duplicate']);
      expect((await orderVersions(fx.pool, [orderId!])).get(orderId!)).toBe(1);
    });

    it('reads an offset key that comes back with another value (a topic recreated from offset 0) as a collision: acknowledged, logged, not applied', async () => {
      const consumer = uniqueConsumer('krecreated');
      const [before, after] = await seedOrders(fx.pool, 2);
      const outcomes: Outcome[] = [];
      const logger = silentLogger();
      const options = shipOptions(fx.db, consumer, outcomes, mode, { logger });
      const old = kafkaRecord({ orderId: before }, { topic: 'recreated', offset: 0 });
      const reborn = kafkaRecord({ orderId: after }, { topic: 'recreated', offset: 0 });

      await processKafkaBatch(kafkaEvent([old]), lambdaContext(), options);
      const response = await processKafkaBatch(kafkaEvent([reborn]), lambdaContext(), options);

      expect(response).toEqual({ batchItemFailures: [] });
      expect(outcomes.map((o) => [o.kind, o.key])).toEqual([['processed', 'recreated:0:0'], ['collision', 'recreated:0:0']]);
      expect(offsetKey(reborn)).toBe('recreated:0:0');
      expect(await orderVersions(fx.pool, [before!, after!])).toEqual(new Map([[before, 1], [after, 0]]));
      expect(logger.error).toHaveBeenCalledWith(expect.stringMatching(/different body/), expect.objectContaining({ key: 'recreated:0:0' }));
    });
  });
});
