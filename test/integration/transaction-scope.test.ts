import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { processBatch, sql, type InboxLogger, type Outcome, type Transaction, type TransactionModeOptions } from '../../functions/inbox/index.js';
import { TransactionEndedError, UnawaitedQueryError } from '../../functions/inbox/database/errors.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { inboxRows, orderVersions, seedOrders, uniqueConsumer } from '../support/orders.js';
import { thrown } from '../support/thrown.js';
import { failedIds, lambdaContext, sqsEvent, sqsRecord } from '../support/sqs-events.js';

type Ship = { orderId: string };

const ship = (orderId: string) => sql`UPDATE orders SET version = version + 1 WHERE order_id = ${sql.uuid(orderId)}`;
const probe = (label: string) => sql`INSERT INTO late_probe (label) VALUES (${label})`;
const nextTimer = () => new Promise((resolve) => setTimeout(resolve, 20));

/** A logger that keeps what it is told at error level. */
function recordingLogger(): InboxLogger & { errors: { message: string; attributes: Record<string, unknown>[] }[] } {
  const errors: { message: string; attributes: Record<string, unknown>[] }[] = [];
  const ignore = () => undefined;
  return { errors, debug: ignore, info: ignore, warn: ignore, error: (message, ...attributes) => { errors.push({ message, attributes }); } };
}

describe.each(drivers)('a transaction is usable only while its callback runs, on $name', (driver) => {
  const fx = useInboxDatabase(driver);
  const probes = async () => (await fx.pool.query<{ label: string }>('SELECT label FROM late_probe ORDER BY id')).rows.map((row) => row.label);

  beforeAll(async () => {
    await fx.pool.query('CREATE TABLE IF NOT EXISTS late_probe (id bigserial PRIMARY KEY, label text NOT NULL)');
  });
  afterEach(async () => {
    await fx.pool.query('TRUNCATE late_probe');
    vi.restoreAllMocks();
  });

  describe('the driver refuses a query after commit or rollback', () => {
    it.each(['committed', 'rolled back'] as const)('after the transaction %s: TransactionEndedError, and the query never runs', async (end) => {
      let kept: Transaction | undefined;
      await fx.db.transaction(async (tx) => {
        kept = tx;
        await tx.query(probe('inside'));
        if (end === 'rolled back') throw new Error('roll back');
      }).catch(() => undefined);

      const late = await thrown(kept!.query(probe('late')));

      expect(late).toBeInstanceOf(TransactionEndedError);
      expect(late.message).toMatch(/had ended when this query was issued/);
      await nextTimer();
      expect(await probes()).toEqual(end === 'committed' ? ['inside'] : []);
    });

    it('a late query never runs in the next transaction, which sees nothing of it', async () => {
      let kept: Transaction | undefined;
      await fx.db.transaction(async (tx) => { kept = tx; await tx.query(sql`SELECT 1`); });

      // The next transaction takes the pooled connection the first one gave back.
      const next = await thrown(fx.db.transaction(async (tx) => {
        const late = await thrown(kept!.query(probe('late')));
        const { rows } = await tx.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM late_probe`);
        throw Object.assign(new Error('the next transaction rolls back'), { late, seen: rows[0]!.n });
      }));

      expect((next as unknown as { late: unknown }).late).toBeInstanceOf(TransactionEndedError);
      expect((next as unknown as { seen: number }).seen).toBe(0);
      expect(await probes()).toEqual([]);
    });

    it('a query still running when the callback returns rolls the transaction back with UnawaitedQueryError', async () => {
      const error = await thrown(fx.db.transaction(async (tx) => {
        // forEach(async ...) returns at once: the callback does not wait for the inserts.
        ['a', 'b'].forEach(async (label) => { await tx.query(probe(label)); });
      }));

      expect(error).toBeInstanceOf(UnawaitedQueryError);
      expect(error.message).toMatch(/returned while 2 of its queries were still running, so it was rolled back/);
      expect(await probes()).toEqual([]);
    });
  });

  describe('the inbox: a handler that does not wait for its queries', () => {
    const options = (consumer: string, outcomes: Outcome[], handle: TransactionModeOptions<Ship>['handle'], logger?: InboxLogger): TransactionModeOptions<Ship> => ({
      consumer, db: fx.db, onOutcome: (o) => outcomes.push(o), handle, ...(logger ? { logger } : {}),
    });

    it('a query still in flight when handle returns: the message fails, rolled back, and its redelivery applies it once', async () => {
      const consumer = uniqueConsumer('inflight');
      const [first, second] = await seedOrders(fx.pool, 2);
      const outcomes: Outcome[] = [];
      const record = sqsRecord({ orderId: first }, { key: 'inflight' });
      const orders = [first!, second!];

      const careless = await processBatch(sqsEvent(record), lambdaContext(), options(consumer, outcomes, async (_m, { tx }) => {
        orders.forEach(async (id) => { await tx.query(ship(id)); });
      }));

      expect(failedIds(careless)).toEqual([record.messageId]);
      expect(outcomes[0]).toMatchObject({ kind: 'failed' });
      expect(outcomes[0]!.error).toBeInstanceOf(UnawaitedQueryError);
      expect(await orderVersions(fx.pool, orders)).toEqual(new Map([[first, 0], [second, 0]]));
      expect((await inboxRows(fx.pool, consumer)).size).toBe(0);

      const careful = await processBatch(sqsEvent(record), lambdaContext(), options(consumer, outcomes, async (_m, { tx }) => {
        for (const id of orders) await tx.query(ship(id));
      }));

      expect(failedIds(careful)).toEqual([]);
      expect(await orderVersions(fx.pool, orders)).toEqual(new Map([[first, 1], [second, 1]]));
    });

    it('a failing query nobody awaits, still in flight when handle returns: the message fails, and the process sees no unhandled rejection', async () => {
      const consumer = uniqueConsumer('inflightfail');
      const [orderId] = await seedOrders(fx.pool, 1);
      const outcomes: Outcome[] = [];

      const response = await processBatch(sqsEvent(sqsRecord({ orderId })), lambdaContext(), options(consumer, outcomes, async (m, { tx }) => {
        await tx.query(ship(m.orderId));
        void tx.query(sql`SELECT 1 / 0`);
      }));

      expect(failedIds(response)).toHaveLength(1);
      expect(outcomes[0]!.error).toBeInstanceOf(UnawaitedQueryError);
      expect((await orderVersions(fx.pool, [orderId!])).get(orderId!)).toBe(0);
    });

    it('a query after handle returned is refused, logged naming its message, and never runs in the next message\'s transaction', async () => {
      const consumer = uniqueConsumer('late');
      const [firstId, nextId] = await seedOrders(fx.pool, 2);
      const outcomes: Outcome[] = [];
      const logger = recordingLogger();
      const first = sqsRecord({ orderId: firstId }, { key: 'late-first' });
      const next = sqsRecord({ orderId: nextId }, { key: 'late-next' });
      let kept: Transaction | undefined;
      let late: unknown;
      let seenByNext: number | undefined;

      await processBatch(sqsEvent(first), lambdaContext(), options(consumer, outcomes, async (m, { tx }) => {
        kept = tx;
        await tx.query(ship(m.orderId));
      }, logger));
      // The next message's handler runs the first one's late query, then looks and fails.
      const response = await processBatch(sqsEvent(next), lambdaContext(), options(consumer, outcomes, async (m, { tx }) => {
        late = await thrown(kept!.query(probe('late')));
        await tx.query(ship(m.orderId));
        seenByNext = (await tx.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM late_probe`)).rows[0]!.n;
        throw new Error('the next message fails');
      }, logger));

      expect(late).toBeInstanceOf(TransactionEndedError);
      expect(seenByNext).toBe(0);
      expect(failedIds(response)).toEqual([next.messageId]);
      expect(outcomes.map((o) => o.kind)).toEqual(['processed', 'failed']);
      expect(await probes()).toEqual([]);
      expect(await orderVersions(fx.pool, [firstId!, nextId!])).toEqual(new Map([[firstId, 1], [nextId, 0]]));
      expect([...(await inboxRows(fx.pool, consumer)).keys()]).toEqual(['late-first']);
      expect(logger.errors).toHaveLength(1);
      expect(logger.errors[0]!.message).toContain(`message ${first.messageId} (key late-first): a tx.query came after its transaction had ended`);
      expect(logger.errors[0]!.attributes).toEqual([{ consumer, messageId: first.messageId, key: 'late-first' }]);
    });

    it('a query from a timer after handle returned, awaited by nobody: refused, said on the console without a logger, no unhandled rejection', async () => {
      const consumer = uniqueConsumer('timer');
      const [orderId] = await seedOrders(fx.pool, 1);
      const outcomes: Outcome[] = [];
      const record = sqsRecord({ orderId });
      const console = vi.spyOn(globalThis.console, 'error').mockImplementation(() => undefined);
      let fired!: () => void;
      const timerFired = new Promise<void>((resolve) => { fired = resolve; });

      const response = await processBatch(sqsEvent(record), lambdaContext(), options(consumer, outcomes, async (m, { tx }) => {
        await tx.query(ship(m.orderId));
        setTimeout(() => { void tx.query(probe('from a timer')); fired(); }, 10);
      }));
      await timerFired;
      await nextTimer();

      expect(failedIds(response)).toEqual([]);
      expect(console).toHaveBeenCalledTimes(1);
      expect(console.mock.calls[0]![0]).toContain(`message ${record.messageId}`);
      expect(await probes()).toEqual([]);
      expect((await orderVersions(fx.pool, [orderId!])).get(orderId!)).toBe(1);
    });
  });
});
