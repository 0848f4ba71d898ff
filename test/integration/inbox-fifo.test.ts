import { beforeAll, describe, expect, it } from 'vitest';
import { LaneBlockedError, processBatch, sql, type InboxCommonOptions, type Outcome, type TransactionModeOptions } from '../../functions/inbox/index.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { uniqueConsumer } from '../support/orders.js';
import { failedIds, lambdaContext, sqsEvent, sqsRecord } from '../support/sqs-events.js';

type Step = { group: string; seq: number; fail?: boolean };

describe.each(drivers)('FIFO message groups on $name', (driver) => {
  const fx = useInboxDatabase(driver);

  /** Appends each step to a per-consumer log table, so the order of commits can be read back. */
  const logSteps = (consumer: string, outcomes: Outcome[], extra: Partial<InboxCommonOptions<Step>> = {}): TransactionModeOptions<Step> => ({
    consumer, db: fx.db, onOutcome: (o) => outcomes.push(o),
    handle: async (step, { tx }) => {
      if (step.fail) throw new Error(`step ${step.group}/${step.seq} failed`);
      await tx.query(sql`INSERT INTO fifo_log (consumer, grp, seq) VALUES (${consumer}, ${step.group}, ${step.seq})`);
    },
    ...extra,
  });

  const logged = async (consumer: string) =>
    (await fx.pool.query<{ grp: string; seq: number }>('SELECT grp, seq FROM fifo_log WHERE consumer = $1 ORDER BY id', [consumer])).rows;

  const step = (group: string, seq: number, fail = false) => sqsRecord({ group, seq, fail }, { groupId: group, deduplicationId: `${group}-${seq}-${Math.random()}` });

  beforeAll(async () => {
    await fx.pool.query('CREATE TABLE fifo_log (id bigserial PRIMARY KEY, consumer text NOT NULL, grp text NOT NULL, seq int NOT NULL)');
  });

  describe('order inside a group', () => {
    it('runs the records of a group one after another in batch order, groups concurrently', async () => {
      const consumer = uniqueConsumer('order');
      const records = [step('a', 1), step('b', 1), step('a', 2), step('b', 2), step('a', 3), step('c', 1), step('b', 3)];

      const response = await processBatch(sqsEvent(...records), lambdaContext(), logSteps(consumer, []));

      expect(failedIds(response)).toEqual([]);
      const rows = await logged(consumer);
      for (const group of ['a', 'b', 'c']) {
        const seqs = rows.filter((r) => r.grp === group).map((r) => r.seq);
        expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
      }
      expect(rows).toHaveLength(7);
    });
  });

  describe("laneFailure: 'lane' (the default)", () => {
    it('skips the rest of the failed group and no other group', async () => {
      const consumer = uniqueConsumer('group');
      const outcomes: Outcome[] = [];
      const records = [step('a', 1), step('b', 1), step('a', 2, true), step('b', 2), step('a', 3), step('a', 4), step('b', 3)];

      const response = await processBatch(sqsEvent(...records), lambdaContext(), logSteps(consumer, outcomes));

      expect(failedIds(response)).toEqual([records[2], records[4], records[5]].map((r) => r!.messageId));
      const applied = (await logged(consumer)).map((r) => `${r.grp}${r.seq}`);
      expect(applied.sort()).toEqual(['a1', 'b1', 'b2', 'b3']);
      const byId = new Map(outcomes.map((o) => [o.messageId, o.kind]));
      expect(records.map((r) => byId.get(r.messageId))).toEqual(['processed', 'processed', 'failed', 'processed', 'skipped', 'skipped', 'processed']);
      const skipped = outcomes.filter((o) => o.kind === 'skipped');
      expect(skipped.map((o) => [o.lane, o.error instanceof LaneBlockedError, (o.error as Error).message])).toEqual([
        ['a', true, 'Not attempted: an earlier message of this message group failed in this batch.'],
        ['a', true, 'Not attempted: an earlier message of this message group failed in this batch.'],
      ]);
    });

    it('resumes the group in order when SQS delivers the failed message and its followers again', async () => {
      const consumer = uniqueConsumer('resume');
      const first = [step('a', 1), step('a', 2, true), step('a', 3)];
      await processBatch(sqsEvent(...first), lambdaContext(), logSteps(consumer, []));

      const fixed = sqsRecord({ group: 'a', seq: 2 }, { groupId: 'a', messageId: first[1]!.messageId, deduplicationId: first[1]!.attributes.MessageDeduplicationId });
      const response = await processBatch(sqsEvent(fixed, first[2]!), lambdaContext(), logSteps(consumer, []));

      expect(failedIds(response)).toEqual([]);
      expect((await logged(consumer)).map((r) => r.seq)).toEqual([1, 2, 3]);
    });
  });

  describe("laneFailure: 'batch'", () => {
    it('skips every record not yet started once any record fails', async () => {
      const consumer = uniqueConsumer('batch');
      const outcomes: Outcome[] = [];
      const records = [step('a', 1), step('a', 2, true), step('b', 1), step('c', 1)];

      const response = await processBatch(sqsEvent(...records), lambdaContext(), logSteps(consumer, outcomes, { laneFailure: 'batch', concurrency: 1 }));

      const byId = new Map(outcomes.map((o) => [o.messageId, o.kind]));
      expect(records.map((r) => byId.get(r.messageId))).toEqual(['processed', 'failed', 'skipped', 'skipped']);
      expect(failedIds(response)).toEqual(records.slice(1).map((r) => r.messageId));
      expect(await logged(consumer)).toEqual([{ grp: 'a', seq: 1 }]);
    });
  });

  describe('a rejected or duplicate record', () => {
    it('is acknowledged and does not stop its group', async () => {
      const consumer = uniqueConsumer('reject');
      const outcomes: Outcome[] = [];
      const notJson = sqsRecord('{oops', { groupId: 'a', deduplicationId: 'x-1' });
      const records = [step('a', 1), notJson, step('a', 2)];

      const response = await processBatch(sqsEvent(...records), lambdaContext(), logSteps(consumer, outcomes));

      expect(failedIds(response)).toEqual([]);
      expect(outcomes.map((o) => o.kind)).toEqual(['processed', 'rejected', 'processed']);
    });
  });
});
