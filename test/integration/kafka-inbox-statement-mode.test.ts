import { describe, expect, it } from 'vitest';
import { processKafkaBatch, sql, type Outcome, type SqlStatement } from '../../functions/inbox/index.js';
import { countingDatabase } from '../support/counting-database.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { offsetKey, redelivered, shipStatement, type Ship } from '../support/kafka-inbox.js';
import { kafkaEvent, kafkaFailures, kafkaRecord } from '../support/kafka-events.js';
import { orderRow, seedOrders, uniqueConsumer } from '../support/orders.js';
import { lambdaContext } from '../support/sqs-events.js';

describe.each(drivers)('Kafka statement mode guards any statement on $name', (driver) => {
  const fx = useInboxDatabase(driver);

  const effects: Record<string, (orderId: string) => SqlStatement> = {
    UPDATE: (id) => sql`UPDATE orders SET version = version + 1 WHERE order_id = ${sql.uuid(id)}`,
    INSERT: (id) => sql`INSERT INTO order_payments (payment_id, order_id, amount) VALUES (gen_random_uuid(), ${sql.uuid(id)}, ${sql.decimal('1.00')})`,
    DELETE: (id) => sql`DELETE FROM order_payments WHERE payment_id = (SELECT payment_id FROM order_payments WHERE order_id = ${sql.uuid(id)} LIMIT 1)`,
  };
  const expectedOnce: Record<string, { version: number; payments: number }> = {
    UPDATE: { version: 1, payments: 3 },
    INSERT: { version: 0, payments: 4 },
    DELETE: { version: 0, payments: 2 },
  };

  const effectCount = async (id: string) => {
    const row = await orderRow(fx.pool, id);
    const payments = await fx.pool.query('SELECT count(*)::int AS n FROM order_payments WHERE order_id = $1', [id]);
    return { version: row.version, payments: payments.rows[0].n as number };
  };

  it.each(Object.keys(effects))('an %s effect survives only with a fresh claim, however often Lambda hands the record over', async (kind) => {
    const consumer = uniqueConsumer(`kguard-${kind}`);
    const [orderId] = await seedOrders(fx.pool, 1);
    await fx.pool.query('INSERT INTO order_payments (payment_id, order_id, amount) SELECT gen_random_uuid(), $1, 5 FROM generate_series(1, 3)', [orderId]);
    const outcomes: Outcome[] = [];
    const record = kafkaRecord({ orderId });
    const options = { consumer, db: fx.db, onOutcome: (o: Outcome) => outcomes.push(o), statement: (m: Ship) => effects[kind]!(m.orderId) };

    await processKafkaBatch(kafkaEvent([record]), lambdaContext(), options);
    const once = await effectCount(orderId!);
    await processKafkaBatch(kafkaEvent([redelivered(record)]), lambdaContext(), options);
    await processKafkaBatch(kafkaEvent([redelivered(record)]), lambdaContext(), options);

    expect(once).toEqual(expectedOnce[kind]);
    expect(await effectCount(orderId!)).toEqual(once);
    expect(outcomes.map((o) => o.kind)).toEqual(['processed', 'duplicate', 'duplicate']);
  });

  it('a statement that divides by zero itself is a failure, not a duplicate', async () => {
    const consumer = uniqueConsumer('kdiv');
    const outcomes: Outcome[] = [];
    const record = kafkaRecord({});

    const response = await processKafkaBatch(kafkaEvent([record]), lambdaContext(), {
      consumer, db: fx.db, onOutcome: (o) => outcomes.push(o),
      statement: () => sql`UPDATE orders SET version = version + (1 / 0) WHERE false`,
    });

    expect(outcomes.map((o) => o.kind)).toEqual(['failed']);
    expect(response).toEqual(kafkaFailures(record));
    expect((await fx.pool.query('SELECT 1 FROM consumed_message WHERE consumer_name = $1', [consumer])).rowCount).toBe(0);
  });

  it('costs one statement per fresh record and two per duplicate; a transaction-mode record its claim and its own statements', async () => {
    const consumer = uniqueConsumer('kcount');
    const ids = await seedOrders(fx.pool, 3);
    const statementDb = countingDatabase(fx.db);
    const transactionDb = countingDatabase(fx.db);
    const records = ids.map((orderId, i) => kafkaRecord({ orderId }, { partition: i }));

    await processKafkaBatch<Ship>(kafkaEvent(records), lambdaContext(), { consumer, db: statementDb.db, statement: (m) => shipStatement(m.orderId) });
    const fresh = statementDb.calls();
    await processKafkaBatch<Ship>(kafkaEvent(records.map(redelivered)), lambdaContext(), { consumer, db: statementDb.db, statement: (m) => shipStatement(m.orderId) });
    await processKafkaBatch<Ship>(kafkaEvent(records.map(redelivered)), lambdaContext(), {
      consumer: `${consumer}-tx`, db: transactionDb.db, handle: async (m, { tx }) => { await tx.query(shipStatement(m.orderId)); },
    });

    expect(fresh).toBe(3);
    expect(statementDb.calls() - fresh).toBe(6);
    expect(statementDb.transactions()).toBe(0);
    expect(transactionDb.calls()).toBe(6);
    expect(transactionDb.transactions()).toBe(3);
  });

  it('the context has the record and its key, and no tx', async () => {
    const consumer = uniqueConsumer('kctx');
    const seen: unknown[] = [];
    const withHeader = kafkaRecord({}, { headers: { 'idempotency-key': 'ctx-key' } });
    const withoutHeader = kafkaRecord({});

    await processKafkaBatch(kafkaEvent([withHeader, withoutHeader]), lambdaContext(), {
      consumer, db: fx.db, concurrency: 1,
      statement: (_m, ctx) => { seen.push(ctx); return sql`SELECT 1`; },
    });

    expect(seen).toEqual([{ record: withHeader, key: 'ctx-key' }, { record: withoutHeader, key: offsetKey(withoutHeader) }]);
  });
});
