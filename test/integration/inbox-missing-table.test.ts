import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  InboxTableMissingError, processBatch, processKafkaBatch, sql, type Database, type InboxLogger, type Outcome,
} from '../../functions/inbox/index.js';
import { emptyDatabase, type FreshDatabase } from '../support/database.js';
import { drivers } from '../support/drivers.js';
import { kafkaEvent, kafkaRecord } from '../support/kafka-events.js';
import { namedIds, shipOptions, type Mode } from '../support/kafka-inbox.js';
import { orderVersions, seedOrders, uniqueConsumer } from '../support/orders.js';
import { failedIds, lambdaContext, sqsEvent, sqsRecord } from '../support/sqs-events.js';

type Ship = { orderId: string };

/** A logger that keeps what was said at error level. */
function errorLogger(): { logger: InboxLogger; errors: string[] } {
  const errors: string[] = [];
  const quiet = () => undefined;
  return { errors, logger: { debug: quiet, info: quiet, warn: quiet, error: (message: string) => { errors.push(message); } } };
}

const ship = (orderId: string) => sql`UPDATE orders SET version = version + 1 WHERE order_id = ${sql.uuid(orderId)}`;

describe.each(drivers)('a consumer on a database without the inbox table, on $name', (driver) => {
  let target: FreshDatabase;
  let db: Database;
  let close: () => Promise<void>;

  beforeAll(async () => {
    // The consumer's own table is there; the kit's migrations never ran.
    target = await emptyDatabase();
    await target.pool.query("CREATE TABLE orders (order_id uuid PRIMARY KEY, status text NOT NULL DEFAULT 'pending', version int NOT NULL DEFAULT 0)");
    ({ db, close } = await driver.open(target.url));
  });

  afterAll(async () => {
    await close?.();
    await target?.close();
  });

  it.each(['transaction', 'statement'] as const satisfies readonly Mode[])(
    'reports every record of the batch failed in %s mode, tries none after the first, and says the fix once',
    async (mode) => {
      const orderIds = await seedOrders(target.pool, 3);
      const records = orderIds.map((orderId) => sqsRecord({ orderId }));
      const outcomes: Outcome[] = [];
      const { logger, errors } = errorLogger();
      const common = { consumer: uniqueConsumer('no-table'), db, logger, concurrency: 1, onOutcome: (o: Outcome) => outcomes.push(o) };
      const options = mode === 'statement'
        ? { ...common, statement: (m: Ship) => ship(m.orderId) }
        : { ...common, handle: async (m: Ship, { tx }: { tx: Pick<Database, 'query'> }) => { await tx.query(ship(m.orderId)); } };

      const response = await processBatch(sqsEvent(...records), lambdaContext(), options);

      expect(failedIds(response)).toEqual(records.map((r) => r.messageId));
      expect(outcomes.map((o) => o.kind)).toEqual(['failed', 'skipped', 'skipped']);
      for (const outcome of outcomes) expect(outcome.error).toBeInstanceOf(InboxTableMissingError);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/consumed_message does not exist .*InboxDatabase .*inboxMigrations\(\)/s);
      expect([...(await orderVersions(target.pool, orderIds)).values()]).toEqual([0, 0, 0]);
    },
  );

  it('says it once for a batch whose records ran at once, each of them failed with the named error', async () => {
    const orderIds = await seedOrders(target.pool, 4);
    const records = orderIds.map((orderId) => sqsRecord({ orderId }));
    const outcomes: Outcome[] = [];
    const { logger, errors } = errorLogger();

    const response = await processBatch(sqsEvent(...records), lambdaContext(), {
      consumer: uniqueConsumer('no-table-parallel'), db, logger, statement: (m: Ship) => ship(m.orderId), onOutcome: (o) => outcomes.push(o),
    });

    expect(failedIds(response).sort()).toEqual(records.map((r) => r.messageId).sort());
    expect(outcomes).toHaveLength(4);
    for (const outcome of outcomes) expect(outcome.error).toBeInstanceOf(InboxTableMissingError);
    expect(errors).toHaveLength(1);
  });

  it('says it again in the next batch, which tries again (the migrations may have run since)', async () => {
    const [orderId] = await seedOrders(target.pool, 1);
    const { logger, errors } = errorLogger();
    const options = { consumer: uniqueConsumer('no-table-again'), db, logger, statement: (m: Ship) => ship(m.orderId) };

    await processBatch(sqsEvent(sqsRecord({ orderId })), lambdaContext(), options);
    await processBatch(sqsEvent(sqsRecord({ orderId })), lambdaContext(), options);

    expect(errors).toHaveLength(2);
  });

  it('reports every record of a Kafka batch failed, in each partition', async () => {
    const orderIds = await seedOrders(target.pool, 4);
    const records = orderIds.map((orderId, i) => kafkaRecord({ orderId }, { topic: `no-table-${driver.name}`, partition: i % 2, offset: Math.floor(i / 2) }));
    const outcomes: Outcome[] = [];
    const { logger, errors } = errorLogger();

    const response = await processKafkaBatch(kafkaEvent(records), lambdaContext(),
      shipOptions(db, uniqueConsumer('no-table-kafka'), outcomes, 'statement', { logger }));

    expect(namedIds(response).sort()).toEqual(['0@0', '0@1', '1@0', '1@1'].map((at) => `no-table-${driver.name}-${at}`));
    expect(outcomes.map((o) => o.kind).sort()).toEqual(['failed', 'failed', 'skipped', 'skipped']);
    expect(errors).toHaveLength(1);
  });

  it('leaves a missing table of the handler\'s own as the plain failure it is', async () => {
    const outcomes: Outcome[] = [];
    await target.pool.query('CREATE TABLE IF NOT EXISTS consumed_message (consumer_name text, message_id text, status text, payload_hash text, processed_at timestamptz DEFAULT now(), error text, PRIMARY KEY (consumer_name, message_id))');
    try {
      const response = await processBatch(sqsEvent(sqsRecord({ orderId: '0190a8b2-7c3d-7e4f-8a1b-2c3d4e5f6a7b' })), lambdaContext(), {
        consumer: uniqueConsumer('own-table'), db, onOutcome: (o) => outcomes.push(o),
        statement: () => sql`UPDATE no_such_table SET x = 1`,
      });
      expect(failedIds(response)).toHaveLength(1);
      expect(outcomes[0]?.error).not.toBeInstanceOf(InboxTableMissingError);
      expect(String((outcomes[0]?.error as Error).message)).toMatch(/no_such_table/);
    } finally {
      await target.pool.query('DROP TABLE consumed_message');
    }
  });
});
