import { describe, expect, it } from 'vitest';
import { PermanentError, processBatch, sql, type InboxCommonOptions, type Outcome, type SqlStatement } from '../../functions/inbox/index.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { inboxRows, orderVersions, seedOrders, uniqueConsumer } from '../support/orders.js';
import { failedIds, lambdaContext, sqsEvent, sqsRecord } from '../support/sqs-events.js';

type Ship = { orderId: string };

function revokedProxy(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

function withThrowingGetter<E extends Error>(error: E, field: 'message' | 'name'): E {
  return Object.defineProperty(error, field, { get: () => { throw new Error(`no ${field} for you`); } });
}

/** Values user code may throw whose text cannot simply be read, and what the inbox records for each. */
const UNREADABLE: readonly (readonly [label: string, make: () => unknown, text: string])[] = [
  ['an object with no prototype', () => Object.create(null), '[object Object]'],
  ['a revoked Proxy', revokedProxy, 'a thrown value whose text cannot be read'],
  ['an error whose message getter throws', () => withThrowingGetter(new Error('hidden'), 'message'), 'Error (its message cannot be read)'],
  ['an error whose name getter throws', () => withThrowingGetter(new Error('readable'), 'name'), 'Error: readable'],
];

/** Rejections the inbox must recognise as permanent even when their text cannot be read. */
const UNREADABLE_PERMANENT: readonly (readonly [label: string, make: () => unknown, text: string])[] = [
  ['a PermanentError whose message getter throws', () => withThrowingGetter(new PermanentError('hidden'), 'message'), 'PermanentError (its message cannot be read)'],
  ['a PermanentError whose name getter throws', () => withThrowingGetter(new PermanentError('unknown order'), 'name'), 'Error: unknown order'],
  // What another copy of the kit marks permanent, without a prototype to read anything from.
  ['a permanent mark on an object with no prototype', () => Object.assign(Object.create(null), { [Symbol.for('sqs-inbox.permanent-error')]: true }), '[object Object]'],
];

const ship = (orderId: string): SqlStatement => sql`UPDATE orders SET version = version + 1 WHERE order_id = ${sql.uuid(orderId)}`;
// An effect that takes a while, so it is still running when another lane's user code throws.
const slowShip = (orderId: string): SqlStatement =>
  sql`UPDATE orders SET version = version + 1 FROM (SELECT pg_sleep(0.3)) AS slow WHERE order_id = ${sql.uuid(orderId)}`;

describe.each(drivers)('whatever user code throws, every record ends in a defined outcome, on $name', (driver) => {
  const fx = useInboxDatabase(driver);

  const options = (consumer: string, outcomes: Outcome[], extra: Partial<InboxCommonOptions<Ship>> = {}) => ({
    consumer, db: fx.db, onOutcome: (o: Outcome) => outcomes.push(o), ...extra,
  });

  describe.each(UNREADABLE)('%s', (_label, make, text) => {
    it('thrown by parse: rejected with its reason row and acknowledged; the rest of the batch is applied', async () => {
      const consumer = uniqueConsumer('hparse');
      const [orderId, nextId] = await seedOrders(fx.pool, 2);
      const outcomes: Outcome[] = [];
      const poison = sqsRecord({ orderId }, { key: 'poison' });
      const next = sqsRecord({ orderId: nextId }, { key: 'next' });

      const response = await processBatch(sqsEvent(poison, next), lambdaContext(), {
        ...options(consumer, outcomes, { parse: (record) => { if (record === poison) throw make(); return JSON.parse(record.body) as Ship; } }),
        statement: (m) => ship(m.orderId),
      });

      expect(failedIds(response)).toEqual([]);
      expect((await inboxRows(fx.pool, consumer)).get('poison')).toMatchObject({ status: 'rejected', error: text });
      expect(await orderVersions(fx.pool, [orderId!, nextId!])).toEqual(new Map([[orderId, 0], [nextId, 1]]));
      expect(outcomes.map((o) => [o.messageId, o.kind]).sort()).toEqual([[poison.messageId, 'rejected'], [next.messageId, 'processed']].sort());
    });

    it('thrown by a key function: that record is rejected under its messageId with the reason, and the rest of the batch runs', async () => {
      const consumer = uniqueConsumer('hkey');
      const [orderId, nextId] = await seedOrders(fx.pool, 2);
      const outcomes: Outcome[] = [];
      const poison = sqsRecord({ orderId });
      const next = sqsRecord({ orderId: nextId });

      const response = await processBatch(sqsEvent(poison, next), lambdaContext(), {
        ...options(consumer, outcomes, { key: (record) => { if (record === poison) throw make(); return record.messageId; } }),
        statement: (m) => ship(m.orderId),
      });

      expect(failedIds(response)).toEqual([]);
      expect((await inboxRows(fx.pool, consumer)).get(poison.messageId)).toMatchObject({
        status: 'rejected', error: `InvalidKeyError: The message has no usable idempotency key: the key function threw ${text}.`,
      });
      expect(await orderVersions(fx.pool, [orderId!, nextId!])).toEqual(new Map([[orderId, 0], [nextId, 1]]));
      expect(outcomes).toHaveLength(2);
    });

    it.each(['statement', 'handle'] as const)('thrown by %s: that record fails with the value it threw, rolled back, and the batch answers only once the other lanes have committed', async (mode) => {
      const consumer = uniqueConsumer(`h${mode}`);
      const [orderId, slowId] = await seedOrders(fx.pool, 2);
      const outcomes: Outcome[] = [];
      const poison = sqsRecord({ orderId });
      const slow = sqsRecord({ orderId: slowId });
      const thrown = make();
      const base = options(consumer, outcomes);

      const response = await processBatch(sqsEvent(slow, poison), lambdaContext(), mode === 'statement'
        ? { ...base, statement: (m) => { if (m.orderId === orderId) throw thrown; return slowShip(m.orderId); } }
        : {
            ...base,
            handle: async (m, { tx }) => {
              if (m.orderId === orderId) {
                await tx.query(ship(m.orderId));
                throw thrown;
              }
              await tx.query(slowShip(m.orderId));
            },
          });
      // Read at once: a statement still running after the answer would commit later, unseen by it.
      const versions = await orderVersions(fx.pool, [orderId!, slowId!]);

      expect(failedIds(response)).toEqual([poison.messageId]);
      expect(versions).toEqual(new Map([[orderId, 0], [slowId, 1]]));
      expect(outcomes).toHaveLength(2);
      expect(outcomes.find((o) => o.messageId === poison.messageId)).toMatchObject({ kind: 'failed' });
      expect(outcomes.find((o) => o.messageId === poison.messageId)?.error).toBe(thrown);
      expect([...(await inboxRows(fx.pool, consumer)).keys()]).toEqual([slow.messageId]);
    });
  });

  describe.each(UNREADABLE_PERMANENT)('%s', (_label, make, text) => {
    it.each(['handle', 'statement'] as const)('thrown from %s: rolled back, then rejected with its reason row and acknowledged', async (mode) => {
      const consumer = uniqueConsumer('hpermanent');
      const [orderId] = await seedOrders(fx.pool, 1);
      const outcomes: Outcome[] = [];
      const record = sqsRecord({ orderId }, { key: 'permanent' });
      const base = options(consumer, outcomes);

      const response = await processBatch(sqsEvent(record), lambdaContext(), mode === 'handle'
        ? { ...base, handle: async (m, { tx }) => { await tx.query(ship(m.orderId)); throw make(); } }
        : { ...base, statement: () => { throw make(); } });

      expect(failedIds(response)).toEqual([]);
      expect((await inboxRows(fx.pool, consumer)).get('permanent')).toMatchObject({ status: 'rejected', error: text });
      expect((await orderVersions(fx.pool, [orderId!])).get(orderId!)).toBe(0);
      expect(outcomes).toMatchObject([{ kind: 'rejected', messageId: record.messageId }]);
    });
  });
});
