import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processBatch, sql, type StatementModeOptions } from '../../functions/inbox/index.js';
import { relayOutbox, sqsTarget, type OutboxEntry, type Publisher, type RelayReport } from '../../functions/inbox/outbox/index.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { uniqueConsumer } from '../support/orders.js';
import { ageOutbox, drainMessages, keyAttribute, outboxGroups, outboxRows, sqsFailingBodies } from '../support/outbox.js';
import { queueName, type TestSqs } from '../support/sqs.js';
import { lambdaContext, sqsEvent, sqsRecord } from '../support/sqs-events.js';

type Notice = { n: number; group?: string; size?: number };

let local: TestSqs;
/** Bodies whose send entries the emulator fails, every time, while they are in it. */
let failing: Set<string>;

beforeAll(async () => {
  ({ local, failing } = await sqsFailingBodies());
});

afterAll(async () => {
  await local.close();
});

/** The body a notice's row goes out with. */
const bodyOf = (notice: Notice) => JSON.stringify({ notice: notice.n, pad: 'x'.repeat(notice.size ?? 0) });
const records = (notices: Notice[]) => notices.map((notice) => sqsRecord(notice, { key: `notice-${notice.n}-${Math.random()}`, ...(notice.group ? { groupId: notice.group } : {}) }));

/** When each entry's publish call started and ended, on one clock for every recording publisher that shares it. */
interface Timeline {
  readonly published: OutboxEntry[];
  readonly started: Map<string, number>;
  readonly ended: Map<string, number>;
  tick: number;
}

const timeline = (): Timeline => ({ published: [], started: new Map(), ended: new Map(), tick: 0 });

/** A publisher around another that records every entry it is asked to publish on `clock`, slowed by `delayMs`. */
function recording(inner: Publisher, clock: Timeline, delayMs = 0): Publisher {
  return {
    ...inner,
    publish: async (entries, options) => {
      for (const entry of entries) {
        clock.published.push(entry);
        clock.started.set(entry.id, (clock.tick += 1));
      }
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      const answers = await inner.publish(entries, options);
      for (const entry of entries) clock.ended.set(entry.id, (clock.tick += 1));
      return answers;
    },
  };
}

describe.each(drivers)('the outbox relay on $name', (driver) => {
  const fx = useInboxDatabase(driver);

  /**
   * A consumer whose rows the send after the commit could not get out: their bodies fail at the
   * emulator while it runs, so they are left undispatched, as after a crash between commit and send.
   */
  async function leftRows(notices: Notice[], options: { fifo?: boolean } = {}) {
    const consumer = uniqueConsumer('relay');
    const queueUrl = await local.createQueue(queueName('notices', options.fifo));
    const target = sqsTarget({ queueUrl, client: local.client });
    const settings: StatementModeOptions<Notice> = {
      consumer, db: fx.db, statement: () => sql`SELECT 1`,
      outbox: { targets: { notices: target }, maxAttempts: 1, messages: (notice) => [{ target: 'notices', body: bodyOf(notice), groupId: notice.group }] },
    };
    for (const notice of notices) failing.add(bodyOf(notice));
    try {
      for (let i = 0; i < notices.length; i += 10) await processBatch(sqsEvent(...records(notices.slice(i, i + 10))), lambdaContext(), settings);
    } finally {
      for (const notice of notices) failing.delete(bodyOf(notice));
    }
    return { consumer, queueUrl, target };
  }

  describe('sends what the writer left, once its grace and lease are over', () => {
    it('leaves young rows alone, then sends the old ones, marks them dispatched and reports what is left', async () => {
      const { consumer, queueUrl, target } = await leftRows([{ n: 1 }, { n: 2 }, { n: 3 }]);
      expect((await outboxRows(fx.pool, consumer)).map((row) => row.dispatched_at)).toEqual([null, null, null]);

      const young = await relayOutbox(fx.db, { notices: target }, { consumer, graceMs: 60_000 });
      expect(young).toMatchObject({ sent: 0, failed: 0, undispatched: 3 });
      expect(young.oldestUndispatchedAgeMs).toBeGreaterThanOrEqual(0);

      await ageOutbox(fx.pool, consumer, 120);
      const old = await relayOutbox(fx.db, { notices: target }, { consumer, graceMs: 60_000 });

      expect(old).toMatchObject({ sent: 3, failed: 0, left: 0, undispatched: 0, oldestUndispatchedAgeMs: 0 });
      const rows = await outboxRows(fx.pool, consumer);
      expect(rows.map((row) => row.dispatched_at)).toEqual([expect.any(Date), expect.any(Date), expect.any(Date)]);
      expect((await drainMessages(local.client, queueUrl)).map(keyAttribute).sort()).toEqual(rows.map((row) => row.id).sort());
    });

    it('never touches another consumer\'s rows', async () => {
      const mine = await leftRows([{ n: 10 }]);
      const theirs = await leftRows([{ n: 11 }]);
      await ageOutbox(fx.pool, mine.consumer, 120);
      await ageOutbox(fx.pool, theirs.consumer, 120);

      await relayOutbox(fx.db, { notices: mine.target }, { consumer: mine.consumer });

      expect((await outboxRows(fx.pool, theirs.consumer)).map((row) => row.dispatched_at)).toEqual([null]);
    });
  });

  describe('a run says why it stopped, and warns when it had too little time to start', () => {
    it('less time left than marginMs: nothing leased or sent, ended noTime and a warning; with time, it runs and is caught up', async () => {
      const { consumer, target } = await leftRows([{ n: 20 }]);
      await ageOutbox(fx.pool, consumer, 120);
      const warnings: string[] = [];
      const logger = { debug: () => undefined, info: () => undefined, error: () => undefined, warn: (message: string) => { warnings.push(message); } };

      const starved = await relayOutbox(fx.db, { notices: target }, { consumer, remainingMs: () => 4_000, logger });
      const ran = await relayOutbox(fx.db, { notices: target }, { consumer, remainingMs: () => 60_000, logger });

      expect(starved).toMatchObject({ ended: 'noTime', passes: 0, sent: 0, undispatched: 1 });
      expect(warnings).toEqual([expect.stringMatching(/sent nothing: less time was left than its marginMs/)]);
      expect(ran).toMatchObject({ ended: 'caughtUp', sent: 1, undispatched: 0 });
    });

    it('ended deadline when its time runs out after a pass', async () => {
      const { consumer, target } = await leftRows([{ n: 21 }, { n: 22 }]);
      await ageOutbox(fx.pool, consumer, 120);
      let left = 6_000;
      // Each look at the clock costs a second: the first pass starts above the 5 s margin, the next would not.
      const report = await relayOutbox(fx.db, { notices: target }, { consumer, batchSize: 1, remainingMs: () => (left -= 1_000) });

      expect(report).toMatchObject({ ended: 'deadline', passes: 1 });
    });
  });

  describe('a FIFO group keeps its order across runs', () => {
    it('sends nothing of a group after a row that did not go, then all of it in order', async () => {
      const notices = [1, 2, 3, 4, 5].map((n) => ({ n: 100 + n, group: 'customer-1' }));
      const { consumer, queueUrl, target } = await leftRows([...notices, { n: 200, group: 'customer-2' }], { fifo: true });
      await ageOutbox(fx.pool, consumer, 120);
      failing.add(bodyOf(notices[0]!));
      let first: RelayReport;
      try {
        first = await relayOutbox(fx.db, { notices: target }, { consumer, maxAttempts: 2 });
      } finally {
        failing.delete(bodyOf(notices[0]!));
      }

      expect(first).toMatchObject({ sent: 1, failed: 0, left: 5 });
      expect((await drainMessages(local.client, queueUrl)).map((m) => JSON.parse(m.Body!).notice)).toEqual([200]);
      const [head] = (await outboxRows(fx.pool, consumer)).filter((row) => row.group_id === 'customer-1' && row.group_seq === '1');
      expect(head).toMatchObject({ dispatched_at: null, error: expect.stringContaining('InternalError') });

      await ageOutbox(fx.pool, consumer, 0);
      const second = await relayOutbox(fx.db, { notices: target }, { consumer });

      expect(second).toMatchObject({ sent: 5, failed: 0, left: 0, undispatched: 0 });
      expect((await drainMessages(local.client, queueUrl)).map((m) => JSON.parse(m.Body!).notice)).toEqual([101, 102, 103, 104, 105]);
      expect(await outboxGroups(fx.pool, consumer)).toEqual([
        expect.objectContaining({ group_id: 'customer-1', open_rows: 0, holder: null }),
        expect.objectContaining({ group_id: 'customer-2', open_rows: 0, holder: null }),
      ]);
    });

    it('two relays at once send every row once, each group in order (FOR UPDATE SKIP LOCKED, groups held by one sender)', async () => {
      const grouped = Array.from({ length: 60 }, (_, i) => ({ n: 1000 + i, group: `g-${i % 6}` }));
      const { consumer, target } = await leftRows(grouped, { fifo: true });
      await ageOutbox(fx.pool, consumer, 120);
      const clock = timeline();
      const other = await fx.openAnother();

      const [ran, alsoRan] = await Promise.all([
        relayOutbox(fx.db, { notices: recording(target, clock, 5) }, { consumer, batchSize: 2 }),
        relayOutbox(other, { notices: recording(target, clock, 5) }, { consumer, batchSize: 2 }),
      ]);

      expect(ran.sent + alsoRan.sent).toBe(60);
      expect(ran.sent).toBeGreaterThan(0);
      expect(alsoRan.sent).toBeGreaterThan(0);
      expect(clock.published).toHaveLength(60);
      expect(new Set(clock.published.map((entry) => entry.id)).size).toBe(60);
      const rows = await outboxRows(fx.pool, consumer);
      expect(rows.filter((row) => row.dispatched_at !== null)).toHaveLength(60);
      // A group moves between the relays; whichever sends a row starts after the call of the row before it ended.
      for (const group of ['g-0', 'g-1', 'g-2', 'g-3', 'g-4', 'g-5']) {
        const inGroup = rows.filter((row) => row.group_id === group).sort((x, y) => Number(x.group_seq) - Number(y.group_seq));
        expect(inGroup.map((row) => Number(row.group_seq))).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
        for (let i = 1; i < inGroup.length; i += 1) expect(clock.started.get(inGroup[i]!.id)).toBeGreaterThan(clock.ended.get(inGroup[i - 1]!.id)!);
      }
    });

    it('two relays at once never send one unordered row twice', async () => {
      const { consumer, target } = await leftRows(Array.from({ length: 40 }, (_, i) => ({ n: 3000 + i })));
      await ageOutbox(fx.pool, consumer, 120);
      const clock = timeline();
      const other = await fx.openAnother();

      const [ran, alsoRan] = await Promise.all([
        relayOutbox(fx.db, { notices: recording(target, clock, 5) }, { consumer, batchSize: 3 }),
        relayOutbox(other, { notices: recording(target, clock, 5) }, { consumer, batchSize: 3 }),
      ]);

      expect(ran.sent + alsoRan.sent).toBe(40);
      expect(ran.sent).toBeGreaterThan(0);
      expect(alsoRan.sent).toBeGreaterThan(0);
      const ids = clock.published.map((entry) => entry.id);
      expect(ids).toHaveLength(40);
      expect(new Set(ids).size).toBe(40);
    });
  });

  describe('a row refused for ever is marked failed with its reason, and never sent again', () => {
    it('a queue that no longer exists fails every row once, counted, and a later run leaves them', async () => {
      const { consumer } = await leftRows([{ n: 400 }, { n: 401 }]);
      await ageOutbox(fx.pool, consumer, 120);
      const gone = sqsTarget({ queueUrl: `${local.sqs.endpoint}/${local.sqs.accountId}/no-such-queue`, client: local.client });

      const first = await relayOutbox(fx.db, { notices: gone }, { consumer });
      await ageOutbox(fx.pool, consumer, 0);
      const second = await relayOutbox(fx.db, { notices: gone }, { consumer });

      expect(first).toMatchObject({ sent: 0, failed: 2, left: 0, undispatched: 0 });
      expect(second).toMatchObject({ sent: 0, failed: 0, left: 0, passes: 1 });
      expect(await outboxRows(fx.pool, consumer)).toEqual([
        expect.objectContaining({ dispatched_at: null, failed_at: expect.any(Date), error: expect.stringMatching(/the target does not exist \(QueueDoesNotExist/) }),
        expect.objectContaining({ dispatched_at: null, failed_at: expect.any(Date), error: expect.stringMatching(/the target does not exist/) }),
      ]);
    });

    it('a message over the queue\'s own MaximumMessageSize is refused by SQS and failed at once after the commit', async () => {
      const consumer = uniqueConsumer('relay-small');
      const queueUrl = await local.createQueue(queueName('small'), { MaximumMessageSize: '1024' });
      await processBatch<Notice>(sqsEvent(...records([{ n: 500, size: 2000 }, { n: 501 }])), lambdaContext(), {
        consumer, db: fx.db, statement: () => sql`SELECT 1`,
        outbox: { targets: { notices: sqsTarget({ queueUrl, client: local.client }) }, messages: (notice) => [{ target: 'notices', body: bodyOf(notice) }] },
      });

      const rows = await outboxRows(fx.pool, consumer);
      expect(rows.map((row) => [JSON.parse(row.body).notice, row.dispatched_at === null, row.failed_at === null])).toEqual(expect.arrayContaining([[500, true, false], [501, false, true]]));
      expect(rows.find((row) => row.failed_at !== null)?.error).toMatch(/BatchRequestTooLong|InvalidParameterValue/);
    });
  });

  describe('bodies read in parts', () => {
    it('sends rows of near 1 MiB that no single Data API answer could hold, byte for byte', async () => {
      const consumer = uniqueConsumer('relay-large');
      const refuseFirst = new Set<string>();
      const seen: OutboxEntry[] = [];
      const large: Publisher = {
        maxMessageBytes: 1_048_576, maxBatchEntries: 10, maxBatchBytes: 4 * 1_048_576,
        publish: async (entries) => entries.map((entry) => {
          if (!refuseFirst.has(entry.id)) {
            refuseFirst.add(entry.id);
            return { kind: 'retry', reason: 'the first try goes nowhere' };
          }
          seen.push(entry);
          return { kind: 'sent' };
        }),
      };
      // Two-byte characters, so parts of 32 KiB cut through them.
      const bodies = [0, 1, 2].map((i) => `${i}${'é'.repeat(450_000)}`);
      await processBatch<{ i: number }>(sqsEvent(...bodies.map((body, i) => sqsRecord({ i }, { key: `large-${i}-${consumer}` }))), lambdaContext(), {
        consumer, db: fx.db, statement: () => sql`SELECT 1`,
        outbox: { targets: { large }, maxAttempts: 1, messages: ({ i }) => [{ target: 'large', body: bodies[i]!, attributes: { part: `p${i}` } }] },
      });
      await ageOutbox(fx.pool, consumer, 120);

      const report = await relayOutbox(fx.db, { large }, { consumer });

      expect(report).toMatchObject({ sent: 3, left: 0 });
      expect(seen.map((entry) => [entry.body, entry.attributes]).sort()).toEqual(bodies.map((body, i) => [body, { part: `p${i}` }]).sort());
    });
  });
});
