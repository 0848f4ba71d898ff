import { describe, expect, it } from 'vitest';
import { processKafkaBatch, type Outcome } from '../../functions/inbox/index.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { kafkaMessageId, kindsOf, MODES, offsetKey, redelivered, shipOptions } from '../support/kafka-inbox.js';
import { kafkaEvent, kafkaRecord } from '../support/kafka-events.js';
import { inboxRows, orderVersions, seedOrders, uniqueConsumer } from '../support/orders.js';
import { lambdaContext } from '../support/sqs-events.js';

const NO_FAILURES = { batchItemFailures: [] };

describe.each(drivers)('Kafka consumer redelivery on $name', (driver) => {
  const fx = useInboxDatabase(driver);

  describe.each(MODES)('in %s mode', (mode) => {
    it('applies records that Lambda hands over again (a partition resumed from an earlier offset) exactly once, acknowledging every delivery', async () => {
      const consumer = uniqueConsumer('kdup');
      const ids = await seedOrders(fx.pool, 4);
      const records = ids.map((orderId) => kafkaRecord({ orderId }));
      const outcomes: Outcome[] = [];
      const options = shipOptions(fx.db, consumer, outcomes, mode);

      const first = await processKafkaBatch(kafkaEvent(records.slice(0, 3)), lambdaContext(), options);
      const resumed = await processKafkaBatch(kafkaEvent([...records.slice(1, 3).map(redelivered), records[3]!]), lambdaContext(), options);

      expect(first).toEqual(NO_FAILURES);
      expect(resumed).toEqual(NO_FAILURES);
      expect([...(await orderVersions(fx.pool, ids)).values()]).toEqual([1, 1, 1, 1]);
      expect(outcomes.map((o) => [o.messageId, o.kind])).toEqual([
        [kafkaMessageId(records[0]!), 'processed'], [kafkaMessageId(records[1]!), 'processed'], [kafkaMessageId(records[2]!), 'processed'],
        [kafkaMessageId(records[1]!), 'duplicate'], [kafkaMessageId(records[2]!), 'duplicate'], [kafkaMessageId(records[3]!), 'processed'],
      ]);
      const rows = await inboxRows(fx.pool, consumer);
      expect([...rows.keys()].sort()).toEqual(records.map(offsetKey).sort());
      expect([...rows.values()].map((row) => row.status)).toEqual(records.map(() => 'processed'));
    });

    it('treats a producer retry (a new offset, the same idempotency-key header) as a duplicate', async () => {
      const consumer = uniqueConsumer('kretry');
      const [orderId] = await seedOrders(fx.pool, 1);
      const outcomes: Outcome[] = [];
      const options = shipOptions(fx.db, consumer, outcomes, mode);
      const sent = kafkaRecord({ orderId }, { headers: { 'idempotency-key': `ship-${orderId}` } });
      const retried = kafkaRecord({ orderId }, { headers: { 'idempotency-key': `ship-${orderId}` } });

      await processKafkaBatch(kafkaEvent([sent]), lambdaContext(), options);
      const response = await processKafkaBatch(kafkaEvent([retried]), lambdaContext(), options);

      expect(retried.offset).toBe(sent.offset + 1);
      expect(response).toEqual(NO_FAILURES);
      expect((await orderVersions(fx.pool, [orderId!])).get(orderId!)).toBe(1);
      expect(outcomes.map((o) => [o.kind, o.key])).toEqual([['processed', `ship-${orderId}`], ['duplicate', `ship-${orderId}`]]);
      expect([...(await inboxRows(fx.pool, consumer)).keys()]).toEqual([`ship-${orderId}`]);
    });

    it('keys by <topic>:<partition>:<offset> without the header: the Kafka record key is not an idempotency key, and a retry at a new offset applies again', async () => {
      const consumer = uniqueConsumer('koffset');
      const [orderId] = await seedOrders(fx.pool, 1);
      const outcomes: Outcome[] = [];
      const options = shipOptions(fx.db, consumer, outcomes, mode);
      const sent = kafkaRecord({ orderId }, { topic: 'orders-eu', partition: 3, key: orderId });
      const retried = kafkaRecord({ orderId }, { topic: 'orders-eu', partition: 3, key: orderId });

      await processKafkaBatch(kafkaEvent([sent]), lambdaContext(), options);
      await processKafkaBatch(kafkaEvent([redelivered(sent), retried]), lambdaContext(), options);

      expect(outcomes.map((o) => [o.kind, o.key])).toEqual([
        ['processed', `orders-eu:3:${sent.offset}`], ['duplicate', `orders-eu:3:${sent.offset}`], ['processed', `orders-eu:3:${retried.offset}`],
      ]);
      expect((await orderVersions(fx.pool, [orderId!])).get(orderId!)).toBe(2);
      expect(outcomes.map((o) => o.keyFallback)).toEqual([undefined, undefined, undefined]);
    });

    it('applies one idempotency key sent to two partitions of one batch once: whichever claims second is a duplicate', async () => {
      const consumer = uniqueConsumer('kcross');
      const [orderId] = await seedOrders(fx.pool, 1);
      const outcomes: Outcome[] = [];
      const headers = { 'idempotency-key': `ship-${orderId}` };
      const records = [kafkaRecord({ orderId }, { partition: 1, headers }), kafkaRecord({ orderId }, { partition: 2, headers })];

      const response = await processKafkaBatch(kafkaEvent(records), lambdaContext(), shipOptions(fx.db, consumer, outcomes, mode));

      expect(response).toEqual(NO_FAILURES);
      expect((await orderVersions(fx.pool, [orderId!])).get(orderId!)).toBe(1);
      expect(outcomes.map((o) => o.kind).sort()).toEqual(['duplicate', 'processed']);
      expect(outcomes.map((o) => o.key)).toEqual([`ship-${orderId}`, `ship-${orderId}`]);
    });

    it('processes many records of several partitions concurrently, each once, and the whole batch again as duplicates', async () => {
      const consumer = uniqueConsumer('kmany');
      const ids = await seedOrders(fx.pool, 10);
      const outcomes: Outcome[] = [];
      const records = ids.map((orderId, i) => kafkaRecord({ orderId }, { partition: i % 5 }));
      const options = shipOptions(fx.db, consumer, outcomes, mode, { concurrency: 5 });

      const first = await processKafkaBatch(kafkaEvent(records), lambdaContext(), options);
      const again = await processKafkaBatch(kafkaEvent(records.map(redelivered)), lambdaContext(), options);

      expect(first).toEqual(NO_FAILURES);
      expect(again).toEqual(NO_FAILURES);
      const versions = await orderVersions(fx.pool, ids);
      expect(ids.map((id) => versions.get(id))).toEqual(ids.map(() => 1));
      expect(kindsOf(records, outcomes.slice(0, 10))).toEqual(records.map(() => 'processed'));
      expect(kindsOf(records, outcomes.slice(10))).toEqual(records.map(() => 'duplicate'));
      expect(outcomes.map((o) => o.lane).slice(0, 10).sort()).toEqual(['orders-0', 'orders-0', 'orders-1', 'orders-1', 'orders-2', 'orders-2', 'orders-3', 'orders-3', 'orders-4', 'orders-4']);
    });
  });
});
