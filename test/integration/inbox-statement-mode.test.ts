import { describe, expect, it } from 'vitest';
import { processBatch, sql, type Database, type Outcome, type SqlStatement } from '../../functions/inbox/index.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { orderRow, seedOrders, uniqueConsumer } from '../support/orders.js';
import { failedIds, lambdaContext, redelivery, sqsEvent, sqsRecord } from '../support/sqs-events.js';

/** Counts the statements a Database is asked to run. */
function counting(db: Database): { db: Database; calls: () => number } {
  let calls = 0;
  return {
    calls: () => calls,
    db: {
      query: (statement) => { calls += 1; return db.query(statement); },
      transaction: (work) => db.transaction((tx) => work({ query: (statement) => { calls += 1; return tx.query(statement); } })),
      close: () => db.close(),
    },
  };
}

describe.each(drivers)('statement mode guards any statement on $name', (driver) => {
  const fx = useInboxDatabase(driver);

  const effects: Record<string, (orderId: string) => SqlStatement> = {
    UPDATE: (id) => sql`UPDATE orders SET version = version + 1 WHERE order_id = ${sql.uuid(id)}`,
    INSERT: (id) => sql`INSERT INTO order_payments (payment_id, order_id, amount) VALUES (gen_random_uuid(), ${sql.uuid(id)}, ${sql.decimal('1.00')})`,
    DELETE: (id) => sql`DELETE FROM order_payments WHERE payment_id = (SELECT payment_id FROM order_payments WHERE order_id = ${sql.uuid(id)} LIMIT 1)`,
  };

  const effectCount = async (id: string) => {
    const row = await orderRow(fx.pool, id);
    const payments = await fx.pool.query('SELECT count(*)::int AS n FROM order_payments WHERE order_id = $1', [id]);
    return { version: row.version, payments: payments.rows[0].n as number };
  };

  it.each(Object.keys(effects))('an %s effect survives only with a fresh claim', async (kind) => {
    const consumer = uniqueConsumer(`guard-${kind}`);
    const [orderId] = await seedOrders(fx.pool, 1);
    await fx.pool.query("INSERT INTO order_payments (payment_id, order_id, amount) SELECT gen_random_uuid(), $1, 5 FROM generate_series(1, 3)", [orderId]);
    const outcomes: Outcome[] = [];
    const record = sqsRecord({ orderId });
    const options = { consumer, db: fx.db, onOutcome: (o: Outcome) => outcomes.push(o), statement: (m: { orderId: string }) => effects[kind]!(m.orderId) };

    await processBatch(sqsEvent(record), lambdaContext(), options);
    const once = await effectCount(orderId!);
    await processBatch(sqsEvent(redelivery(record), redelivery(record)), lambdaContext(), options);

    expect(await effectCount(orderId!)).toEqual(once);
    expect(once).not.toEqual({ version: 0, payments: 3 });
    expect(outcomes.map((o) => o.kind)).toEqual(['processed', 'duplicate', 'duplicate']);
  });

  it('a statement that divides by zero itself is a failure, not a duplicate', async () => {
    const consumer = uniqueConsumer('div');
    const outcomes: Outcome[] = [];
    const record = sqsRecord({});

    const response = await processBatch(sqsEvent(record), lambdaContext(), {
      consumer, db: fx.db, onOutcome: (o) => outcomes.push(o),
      statement: () => sql`UPDATE orders SET version = version + (1 / 0) WHERE false`,
    });

    expect(outcomes[0]?.kind).toBe('failed');
    expect(failedIds(response)).toEqual([record.messageId]);
  });

  it('costs one statement per fresh message, and a transaction-mode message its claim and its own statements', async () => {
    const consumer = uniqueConsumer('count');
    const ids = await seedOrders(fx.pool, 3);
    const statementDb = counting(fx.db);
    const transactionDb = counting(fx.db);
    const update = (id: string) => sql`UPDATE orders SET version = version + 1 WHERE order_id = ${sql.uuid(id)}`;

    await processBatch<{ orderId: string }>(sqsEvent(...ids.map((orderId) => sqsRecord({ orderId }))), lambdaContext(), {
      consumer, db: statementDb.db, statement: (m) => update(m.orderId),
    });
    await processBatch<{ orderId: string }>(sqsEvent(...ids.map((orderId) => sqsRecord({ orderId }))), lambdaContext(), {
      consumer: `${consumer}-tx`, db: transactionDb.db, handle: async (m, { tx }) => { await tx.query(update(m.orderId)); },
    });

    expect(statementDb.calls()).toBe(3);
    expect(transactionDb.calls()).toBe(6);
  });

  it('the context has the record and key, and no tx', async () => {
    const consumer = uniqueConsumer('ctx');
    const seen: unknown[] = [];
    const record = sqsRecord({}, { key: 'ctx-key' });

    await processBatch(sqsEvent(record), lambdaContext(), {
      consumer, db: fx.db,
      statement: (_m, ctx) => { seen.push(ctx); return sql`SELECT 1`; },
    });

    expect(seen).toEqual([{ record, key: 'ctx-key' }]);
  });
});
