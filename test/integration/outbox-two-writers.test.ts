import { describe, expect, it } from 'vitest';
import { processBatch, sql, type Database, type InboxOptions } from '../../functions/inbox/index.js';
import { relayOutbox, type Publisher } from '../../functions/inbox/outbox/index.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { seedOrders, uniqueConsumer } from '../support/orders.js';
import { outboxRows } from '../support/outbox.js';
import { lambdaContext, sqsEvent, sqsRecord } from '../support/sqs-events.js';

type Step = { orderId: string; step: number };

const GROUP = 'customer-1';

/** A FIFO target that records the bodies it is given, in the order it takes them. */
function recordingTarget(): { target: Publisher; received: string[] } {
  const received: string[] = [];
  const target: Publisher = {
    fifo: true,
    maxBatchEntries: 10,
    async publish(entries) {
      received.push(...entries.map((entry) => entry.body));
      return entries.map(() => ({ kind: 'sent' as const }));
    },
  };
  return { target, received };
}

/** A gate an invocation waits at until the test opens it. */
function gate(): { wait: Promise<void>; open(): void } {
  let open = () => {};
  const wait = new Promise<void>((resolve) => { open = resolve; });
  return { wait, open };
}

/** `db`, holding back the one statement whose bound values name `key` until `held` opens. */
function holdingStatementOf(db: Database, key: string, held: Promise<void>): Database {
  return {
    query: async (statement) => {
      if (statement.values.includes(key)) await held;
      return db.query(statement);
    },
    transaction: (work) => db.transaction(work),
    close: () => db.close(),
  };
}

const shipStatement = (step: Step) => sql`UPDATE orders SET status = 'shipped', version = version + 1 WHERE order_id = ${sql.uuid(step.orderId)}`;
const notice = (step: Step) => ({ target: 'notices', groupId: GROUP, body: { step: step.step } });
const record = (step: Step) => sqsRecord(step, { key: `step-${step.step}`, groupId: GROUP });

describe.each(drivers)('FIFO order with two writers of one group on $name', (driver) => {
  const fx = useInboxDatabase(driver);

  /** The consumer's options for one invocation: `held` holds back its row of step 3 until it opens. */
  type Invocation = (db: Database, held: Promise<void>) => InboxOptions<Step>;

  /**
   * Invocation A takes steps 1 and 3 of a group and waits before its second row; meanwhile
   * invocation B (the group handed over when A's visibility timeout ran out) takes step 2. Then A
   * goes on, and the relay sends what the invocations left. Answers the bodies in the order the
   * target received them and in the order the group's rows were numbered.
   */
  async function twoWriters(consumer: string, target: Publisher, received: string[], invocation: Invocation) {
    const steps = (await seedOrders(fx.pool, 3)).map((orderId, i) => ({ orderId, step: i + 1 }));
    const held = gate();
    const a = processBatch(sqsEvent(record(steps[0]!), record(steps[2]!)), lambdaContext(), invocation(fx.db, held.wait));
    await waitFor(async () => (await outboxRows(fx.pool, consumer)).length === 1);
    await processBatch(sqsEvent(record(steps[1]!)), lambdaContext(), invocation(fx.db, Promise.resolve()));
    held.open();
    await a;
    await relayOutbox(fx.db, { notices: target }, { consumer, graceMs: 0 });
    const rows = await outboxRows(fx.pool, consumer);
    const numbered = [...rows].sort((x, y) => Number(x.group_seq) - Number(y.group_seq)).map((row) => row.body);
    return { received, numbered, dispatched: rows.filter((row) => row.dispatched_at !== null).length };
  }

  it('transaction mode: the target receives the group\'s rows in the order they were numbered, 1, 2, 3', async () => {
    const consumer = uniqueConsumer('two-writers-tx');
    const { target, received } = recordingTarget();
    const { numbered, dispatched } = await twoWriters(consumer, target, received, (db, held) => ({
      consumer,
      db,
      outbox: { targets: { notices: target } },
      handle: async (step, { tx, outbox }) => {
        if (step.step === 3) await held;
        await tx.query(shipStatement(step));
        await outbox.send(notice(step));
      },
    }));

    expect(numbered).toEqual([1, 2, 3].map((step) => JSON.stringify({ step })));
    expect(received).toEqual(numbered);
    expect(dispatched).toBe(3);
  });

  it('statement mode: the target receives the group\'s rows in the order they were numbered, 1, 2, 3', async () => {
    const consumer = uniqueConsumer('two-writers-stmt');
    const { target, received } = recordingTarget();
    const { numbered, dispatched } = await twoWriters(consumer, target, received, (db, held) => ({
      consumer,
      db: holdingStatementOf(db, 'step-3', held),
      statement: shipStatement,
      outbox: { targets: { notices: target }, messages: (step) => [notice(step)] },
    }));

    expect(numbered).toEqual([1, 2, 3].map((step) => JSON.stringify({ step })));
    expect(received).toEqual(numbered);
    expect(dispatched).toBe(3);
  });

  describe('a write that waits on another invocation\'s uncommitted row of its group reads the group as that one ends', () => {
    /**
     * A writes step 1, B writes step 2 and holds its transaction open (the group's row locked), A's
     * write of step 3 waits on that lock, then B commits or rolls back. Answers what A sent after
     * its commit, then what the target received once the relay ran, and the rows as numbered.
     */
    async function inFlight(ending: 'commits' | 'rolls back') {
      const consumer = uniqueConsumer('two-writers-lock');
      const { target, received } = recordingTarget();
      const steps = (await seedOrders(fx.pool, 3)).map((orderId, i) => ({ orderId, step: i + 1 }));
      const heldA = gate();
      const bWrote = gate();
      const heldB = gate();
      const options = (db: Database): InboxOptions<Step> => ({
        consumer,
        db,
        outbox: { targets: { notices: target } },
        handle: async (step, { tx, outbox }) => {
          if (step.step === 3) await heldA.wait;
          await tx.query(shipStatement(step));
          await outbox.send(notice(step));
          if (step.step !== 2) return;
          bWrote.open();
          await heldB.wait;
          if (ending === 'rolls back') throw new Error('B fails after its write');
        },
      });
      const a = processBatch(sqsEvent(record(steps[0]!), record(steps[2]!)), lambdaContext(), options(fx.db));
      await waitFor(async () => (await outboxRows(fx.pool, consumer)).length === 1);
      const b = processBatch(sqsEvent(record(steps[1]!)), lambdaContext(), options(fx.db));
      await bWrote.wait;
      heldA.open();
      await waitFor(async () => (await fx.pool.query(
        "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")).rowCount! > 0);
      heldB.open();
      await Promise.all([a, b]);
      const sentByA = [...received];
      await relayOutbox(fx.db, { notices: target }, { consumer, graceMs: 0 });
      const rows = await outboxRows(fx.pool, consumer);
      return { sentByA, received, numbered: [...rows].sort((x, y) => Number(x.group_seq) - Number(y.group_seq)).map((row) => row.body) };
    }

    it('B commits: A sends only step 1, the relay 2 then 3', async () => {
      const { sentByA, received, numbered } = await inFlight('commits');

      expect(numbered).toEqual([1, 2, 3].map((step) => JSON.stringify({ step })));
      expect(sentByA).toEqual([JSON.stringify({ step: 1 })]);
      expect(received).toEqual(numbered);
    });

    it('B rolls back: nothing of another is open, so A keeps the group and sends 1 and 3 itself', async () => {
      const { sentByA, received, numbered } = await inFlight('rolls back');

      expect(numbered).toEqual([1, 3].map((step) => JSON.stringify({ step })));
      expect(sentByA).toEqual(numbered);
      expect(received).toEqual(numbered);
    });
  });
});

/** Polls `done` every 20 ms, for at most 10 s. */
async function waitFor(done: () => Promise<boolean>): Promise<void> {
  const until = Date.now() + 10_000;
  while (!(await done())) {
    if (Date.now() > until) throw new Error('waited 10 s for the first invocation\'s first row');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
