import { describe, expect, it } from 'vitest';
import { processKafkaBatch, sql, type Database, type KafkaInboxOptions, type Outcome } from '../../functions/inbox/index.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { kafkaMessageId, MODES, namedIds, redelivered, shipStatement, type Mode, type Ship } from '../support/kafka-inbox.js';
import { kafkaEvent, kafkaRecord } from '../support/kafka-events.js';
import { orderVersions, seedOrders, uniqueConsumer } from '../support/orders.js';
import { lambdaContext } from '../support/sqs-events.js';

describe.each(drivers)('one Kafka record in two invocations at once on $name', (driver) => {
  const fx = useInboxDatabase(driver);

  const slowShip = (consumer: string, db: Database, outcomes: Outcome[], mode: Mode): KafkaInboxOptions<Ship> => (
    mode === 'statement'
      ? {
          consumer, db, onOutcome: (o) => outcomes.push(o),
          statement: (m) => sql`UPDATE orders SET version = version + 1 WHERE order_id = ${sql.uuid(m.orderId)} AND (SELECT true FROM pg_sleep(0.3))`,
        }
      : {
          consumer, db, onOutcome: (o) => outcomes.push(o),
          handle: async (m, { tx }) => {
            await tx.query(shipStatement(m.orderId));
            await tx.query(sql`SELECT pg_sleep(0.3)`);
          },
        });

  describe.each(MODES)('in %s mode', (mode) => {
    it('never applies a record twice when a rebalance hands one batch to two invocations on two connections; whatever the loser reports comes back as duplicates', async () => {
      const other = await fx.openAnother();
      const consumer = uniqueConsumer('krace');
      const ids = await seedOrders(fx.pool, 6);
      const records = ids.map((orderId, i) => kafkaRecord({ orderId }, { partition: i % 3 }));
      const outcomesA: Outcome[] = [];
      const outcomesB: Outcome[] = [];

      const [a, b] = await Promise.all([
        processKafkaBatch(kafkaEvent(records), lambdaContext(), slowShip(consumer, fx.db, outcomesA, mode)),
        processKafkaBatch(kafkaEvent(records.map(redelivered)), lambdaContext(), slowShip(consumer, other, outcomesB, mode)),
      ]);

      const versions = await orderVersions(fx.pool, ids);
      expect(ids.map((id) => versions.get(id))).toEqual(ids.map(() => 1));
      const all = [...outcomesA, ...outcomesB];
      expect(all).toHaveLength(12);
      const processed = all.filter((o) => o.kind === 'processed').map((o) => o.messageId);
      expect(processed.sort()).toEqual(records.map(kafkaMessageId).sort());
      expect(all.filter((o) => !['processed', 'duplicate', 'failed', 'skipped'].includes(o.kind))).toEqual([]);

      // Lambda resumes each named partition from its failed offset: those records come again and are duplicates.
      const named = new Set([...namedIds(a), ...namedIds(b)]);
      const retryOutcomes: Outcome[] = [];
      const retry = await processKafkaBatch(kafkaEvent(records.filter((r) => named.has(kafkaMessageId(r))).map(redelivered)), lambdaContext(), slowShip(consumer, fx.db, retryOutcomes, mode));
      expect(retry).toEqual({ batchItemFailures: [] });
      expect(retryOutcomes.map((o) => o.kind)).toEqual([...named].map(() => 'duplicate'));
      const after = await orderVersions(fx.pool, ids);
      expect(ids.map((id) => after.get(id))).toEqual(ids.map(() => 1));
    });
  });
});
