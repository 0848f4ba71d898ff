import { beforeAll, describe, expect, it } from 'vitest';
import { LaneBlockedError, PermanentError, processKafkaBatch, type KafkaInboxOptions, type Outcome } from '../../functions/inbox/index.js';
import type { KafkaEventRecord } from '../../local/kafka/index.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { createKafkaLog, kafkaMessageId, kindsOf, loggedIds, logStatement, MODES, namedIds, offsetKey, redelivered, shipStatement, type Mode, type Ship } from '../support/kafka-inbox.js';
import { eventRecords, kafkaEvent, kafkaFailures, kafkaRecord } from '../support/kafka-events.js';
import { inboxRows, orderVersions, seedOrders, uniqueConsumer } from '../support/orders.js';
import { lambdaContext } from '../support/sqs-events.js';

type Act = 'ok' | 'throw' | 'permanent';
type Step = { act: Act };

/** A small seeded generator, so a failing mix can be replayed from its seed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe.each(drivers)('Kafka handler failures on $name', (driver) => {
  const fx = useInboxDatabase(driver);

  beforeAll(() => createKafkaLog(fx.pool));

  const shipThen = (consumer: string, outcomes: Outcome[], after: (attempt: number) => void): KafkaInboxOptions<Ship> => {
    let attempt = 0;
    return {
      consumer, db: fx.db, onOutcome: (o) => outcomes.push(o),
      handle: async (m, { tx }) => {
        attempt += 1;
        await tx.query(shipStatement(m.orderId));
        after(attempt);
      },
    };
  };

  describe('a handler that writes and then throws', () => {
    it('leaves no effect and no inbox row, is reported by its exact identifier with the rest of its partition, and the resumed partition applies each once', async () => {
      const consumer = uniqueConsumer('kthrow');
      const [failingId, afterId, otherId] = await seedOrders(fx.pool, 3);
      const outcomes: Outcome[] = [];
      const options = shipThen(consumer, outcomes, (attempt) => { if (attempt === 1) throw new Error('downstream timeout'); });
      const failing = kafkaRecord({ orderId: failingId }, { topic: 'orders-eu', partition: 4 });
      const after = kafkaRecord({ orderId: afterId }, { topic: 'orders-eu', partition: 4 });
      const other = kafkaRecord({ orderId: otherId }, { topic: 'orders-eu', partition: 5 });

      const first = await processKafkaBatch(kafkaEvent([failing, after, other]), lambdaContext(), { ...options, concurrency: 1 });

      expect(first).toEqual({ batchItemFailures: [
        { itemIdentifier: { partition: 'orders-eu-4', offset: failing.offset } },
        { itemIdentifier: { partition: 'orders-eu-4', offset: after.offset } },
      ] });
      expect(await orderVersions(fx.pool, [failingId!, afterId!, otherId!])).toEqual(new Map([[failingId, 0], [afterId, 0], [otherId, 1]]));
      expect([...(await inboxRows(fx.pool, consumer)).keys()]).toEqual([offsetKey(other)]);
      expect(outcomes[0]).toMatchObject({ kind: 'failed', messageId: `orders-eu-4@${failing.offset}`, lane: 'orders-eu-4' });
      expect((outcomes[0]?.error as Error).message).toBe('downstream timeout');
      expect(outcomes[1]).toMatchObject({ kind: 'skipped', messageId: `orders-eu-4@${after.offset}` });
      expect(outcomes[1]?.error).toBeInstanceOf(LaneBlockedError);
      expect((outcomes[1]?.error as Error).message).toBe('Not attempted: an earlier message of this partition failed in this batch.');

      const resumed = await processKafkaBatch(kafkaEvent([redelivered(failing), redelivered(after)]), lambdaContext(), options);

      expect(resumed).toEqual({ batchItemFailures: [] });
      expect(await orderVersions(fx.pool, [failingId!, afterId!, otherId!])).toEqual(new Map([[failingId, 1], [afterId, 1], [otherId, 1]]));
      expect(outcomes.slice(3).map((o) => o.kind)).toEqual(['processed', 'processed']);
    });
  });

  describe('a handler that throws PermanentError', () => {
    it('rolls back the effect, records the record as rejected with the reason, acknowledges it without stopping its partition, and a redelivery is a duplicate', async () => {
      const consumer = uniqueConsumer('kpermanent');
      const [cancelledId, nextId] = await seedOrders(fx.pool, 2);
      const outcomes: Outcome[] = [];
      const options = shipThen(consumer, outcomes, (attempt) => { if (attempt === 1) throw new PermanentError('order is cancelled'); });
      const cancelled = kafkaRecord({ orderId: cancelledId });
      const next = kafkaRecord({ orderId: nextId });

      const first = await processKafkaBatch(kafkaEvent([cancelled, next]), lambdaContext(), options);
      const again = await processKafkaBatch(kafkaEvent([redelivered(cancelled)]), lambdaContext(), options);

      expect(first).toEqual({ batchItemFailures: [] });
      expect(again).toEqual({ batchItemFailures: [] });
      expect(await orderVersions(fx.pool, [cancelledId!, nextId!])).toEqual(new Map([[cancelledId, 0], [nextId, 1]]));
      expect((await inboxRows(fx.pool, consumer)).get(offsetKey(cancelled))).toMatchObject({ status: 'rejected', error: 'PermanentError: order is cancelled' });
      expect(outcomes.map((o) => o.kind)).toEqual(['rejected', 'processed', 'duplicate']);
    });

    it('records a reason holding a NUL character with it written out, instead of failing to record it on every delivery', async () => {
      const consumer = uniqueConsumer('knul');
      const [orderId] = await seedOrders(fx.pool, 1);
      const outcomes: Outcome[] = [];
      const record = kafkaRecord({ orderId });

      const response = await processKafkaBatch(kafkaEvent([record]), lambdaContext(), shipThen(consumer, outcomes, () => {
        throw new PermanentError('bad name "a\u0000b"');
      }));

      expect(response).toEqual({ batchItemFailures: [] });
      expect(outcomes.map((o) => o.kind)).toEqual(['rejected']);
      expect((await inboxRows(fx.pool, consumer)).get(offsetKey(record))?.error).toBe('PermanentError: bad name "a\\u0000b"');
    });
  });

  describe('a statement builder that throws', () => {
    it('rejects on PermanentError and fails on any other error, naming only the failed record', async () => {
      const consumer = uniqueConsumer('kbuilder');
      const outcomes: Outcome[] = [];
      const permanent = kafkaRecord({ kind: 'permanent' }, { partition: 0 });
      const transient = kafkaRecord({ kind: 'other' }, { partition: 1 });

      const response = await processKafkaBatch<{ kind: string }>(kafkaEvent([permanent, transient]), lambdaContext(), {
        consumer, db: fx.db, onOutcome: (o) => outcomes.push(o),
        statement: (m) => { throw m.kind === 'permanent' ? new PermanentError('no such order') : new Error('config missing'); },
      });

      expect(response).toEqual(kafkaFailures(transient));
      const rows = await inboxRows(fx.pool, consumer);
      expect(rows.get(offsetKey(permanent))).toMatchObject({ status: 'rejected', error: 'PermanentError: no such order' });
      expect(rows.has(offsetKey(transient))).toBe(false);
      expect(kindsOf([permanent, transient], outcomes)).toEqual(['rejected', 'failed']);
    });
  });

  describe('the response', () => {
    const stepOptions = (consumer: string, outcomes: Outcome[], mode: Mode): KafkaInboxOptions<Step> => {
      const act = (step: Step) => {
        if (step.act === 'throw') throw new Error('downstream down');
        if (step.act === 'permanent') throw new PermanentError('never');
      };
      return mode === 'statement'
        ? { consumer, db: fx.db, onOutcome: (o) => outcomes.push(o), concurrency: 3, statement: (step, { record }) => { act(step); return logStatement(consumer, record); } }
        : { consumer, db: fx.db, onOutcome: (o) => outcomes.push(o), concurrency: 3, handle: async (step, { tx, record }) => { await tx.query(logStatement(consumer, record)); act(step); } };
    };

    /** What a record must become: an ordered partition fails at its first throw and skips the rest. */
    function expectedKinds(records: { record: KafkaEventRecord; act: Act | 'not json' }[]): string[] {
      const failedPartitions = new Set<number>();
      return records.map(({ record, act }) => {
        if (failedPartitions.has(record.partition)) return 'skipped';
        if (act === 'throw') { failedPartitions.add(record.partition); return 'failed'; }
        return act === 'ok' ? 'processed' : 'rejected';
      });
    }

    describe.each(MODES)('in %s mode', (mode) => {
      it.each([1, 2, 3, 4, 5, 6])('never names a record not in the event and never omits one that did not commit (mix %i)', async (seed) => {
        const consumer = uniqueConsumer(`kmix${seed}`);
        const random = seeded(seed * 7919);
        const acts: (Act | 'not json')[] = ['ok', 'ok', 'ok', 'throw', 'permanent', 'not json'];
        const drawn = Array.from({ length: 24 }, () => {
          const act = acts[Math.floor(random() * acts.length)]!;
          const partition = Math.floor(random() * 4);
          return { act, partition };
        });
        // kafkaEvent groups by partition in first-seen order: list the records that way so the expectation follows the event.
        const partitions = [...new Set(drawn.map((d) => d.partition))];
        const cases = partitions.flatMap((partition) => drawn.filter((d) => d.partition === partition).map(({ act }) => ({
          act, record: kafkaRecord(act === 'not json' ? '{oops' : { act }, { topic: 'mix', partition }),
        })));
        const event = kafkaEvent(cases.map((c) => c.record));
        const outcomes: Outcome[] = [];

        const response = await processKafkaBatch(event, lambdaContext(), stepOptions(consumer, outcomes, mode));

        const kinds = expectedKinds(cases);
        expect(kindsOf(eventRecords(event), outcomes)).toEqual(kinds);
        const uncommitted = cases.filter((_c, i) => kinds[i] === 'failed' || kinds[i] === 'skipped').map((c) => c.record);
        expect(response).toEqual(kafkaFailures(...uncommitted));
        const inEvent = new Set(eventRecords(event).map(kafkaMessageId));
        expect(namedIds(response).filter((id) => !inEvent.has(id))).toEqual([]);
        expect(new Set(namedIds(response)).size).toBe(response.batchItemFailures.length);
        const rows = await inboxRows(fx.pool, consumer);
        const named = new Set(namedIds(response));
        for (const record of eventRecords(event)) {
          expect(named.has(kafkaMessageId(record)), kafkaMessageId(record)).toBe(!rows.has(offsetKey(record)));
        }
        const applied = cases.filter((_c, i) => kinds[i] === 'processed').map((c) => kafkaMessageId(c.record));
        expect((await loggedIds(fx.pool, consumer)).sort()).toEqual(applied.sort());
      });
    });
  });
});
