import { describe, expect, it } from 'vitest';
import type { OutboxEntry, Publisher } from '../../functions/inbox/outbox/index.js';
import { InjectedCrashError } from '../../demo/crashing-handler.js';
import { crashingPublisher } from '../../demo/crashing-publisher.js';
import { settleDownstream, type OutboxRowRecord } from '../../demo/downstream-accounts.js';
import { runMainJob } from '../../demo/main-job.js';
import { checkOutboxSource } from '../../demo/outbox-run-options.js';
import { faultsByQueue } from '../../demo/queue-faults.js';
import { sqsRunFailure } from '../../demo/run-verdict.js';
import { LocalConfigError } from '../../local/errors.js';

const row = (id: string, orderId: string, groupSeq: number, extra: Partial<OutboxRowRecord> = {}): OutboxRowRecord =>
  ({ id, orderId, groupId: 'g', groupSeq, dispatched: true, byRelay: false, ...extra });
const notice = (orderId: string, key: string, groupId = 'g') => ({ orderId, key, groupId });

describe('the second hop is settled from the rows, the notices and the notice DLQ', () => {
  it('counts each shipped order\'s notices: one is right, two a double effect, none a loss unless its message is parked', () => {
    const accounts = settleDownstream({
      shipped: ['once', 'twice', 'none', 'parked'],
      rows: [row('r1', 'once', 1), row('r2', 'twice', 2), row('r3', 'none', 3), row('r4', 'parked', 4, { dispatched: true })],
      notices: [notice('once', 'r1'), notice('twice', 'r2'), notice('twice', 'r2')],
      parked: ['r4'],
    });

    expect(accounts).toMatchObject({ notices: 3, doubleEffects: 1, lost: 1, lostOrders: ['none'], inDlq: 1, orderBreaks: 0 });
  });

  it('counts who sent each dispatched row, and every row not dispatched', () => {
    const accounts = settleDownstream({
      shipped: [],
      rows: [row('a', 'o1', 1), row('b', 'o2', 2, { byRelay: true }), row('c', 'o3', 3, { byRelay: true }), row('d', 'o4', 4, { dispatched: false })],
      notices: [],
      parked: [],
    });

    expect(accounts).toMatchObject({ sentAfterCommit: 1, sentByRelay: 2, notDispatched: 1 });
  });

  it('counts a notice written after one its row comes after in the group as an order break; other groups do not interleave', () => {
    const rows = [row('a1', 'o1', 1), row('a2', 'o2', 2), row('a3', 'o3', 3), row('b1', 'p1', 1, { groupId: 'h' }), row('b2', 'p2', 2, { groupId: 'h' })];
    const inOrder = [notice('o1', 'a1'), notice('p1', 'b1', 'h'), notice('o2', 'a2'), notice('p2', 'b2', 'h'), notice('o3', 'a3')];
    const broken = [notice('o1', 'a1'), notice('o3', 'a3'), notice('o2', 'a2'), notice('p1', 'b1', 'h'), notice('p2', 'b2', 'h')];

    expect(settleDownstream({ shipped: [], rows, notices: inOrder, parked: [] }).orderBreaks).toBe(0);
    expect(settleDownstream({ shipped: [], rows, notices: broken, parked: [] }).orderBreaks).toBe(1);
  });

  it('counts as phantom a notice of an order never shipped or whose key is no outbox row, and a row of an order never shipped', () => {
    const accounts = settleDownstream({
      shipped: ['once'],
      rows: [row('r1', 'once', 1), row('r2', 'rolled-back', 2)],
      notices: [notice('once', 'r1'), notice('rolled-back', 'r2'), notice('once', 'sent-before-commit')],
      parked: [],
    });
    const clean = settleDownstream({ shipped: ['once'], rows: [row('r1', 'once', 1)], notices: [notice('once', 'r1')], parked: [] });

    expect(accounts.phantom).toBe(3);
    expect(clean.phantom).toBe(0);
  });

  it('fails the run on a phantom notice alone', () => {
    const firstHop = { doubleEffects: 0, unclaimedEffects: 0, lost: 0, lostKeys: [], rejectedUnkept: 0 };
    const accounts = settleDownstream({ shipped: [], rows: [], notices: [notice('rolled-back', 'r9')], parked: [] });
    const clean = settleDownstream({ shipped: [], rows: [], notices: [], parked: [] });

    expect(sqsRunFailure({ ...firstHop, outbox: accounts })).toMatch(/the second hop .* wrote one for an order not shipped/);
    expect(sqsRunFailure({ ...firstHop, outbox: clean })).toBeUndefined();
  });

  it('fails the run on broken traces alone', () => {
    const firstHop = { doubleEffects: 0, unclaimedEffects: 0, lost: 0, lostKeys: [], rejectedUnkept: 0 };
    const clean = settleDownstream({ shipped: [], rows: [], notices: [], parked: [] });

    expect(sqsRunFailure({ ...firstHop, outbox: { ...clean, brokenTraces: 2 } })).toMatch(/2 shipped orders' notices are not in the trace their producer started/);
    expect(sqsRunFailure({ ...firstHop, outbox: { ...clean, brokenTraces: 0 } })).toBeUndefined();
  });

  it('fails the run on a rejected message without its kept body', () => {
    const firstHop = { doubleEffects: 0, unclaimedEffects: 0, lost: 0, lostKeys: [], rejectedUnkept: 1 };

    expect(sqsRunFailure({ ...firstHop, outbox: undefined })).toMatch(/1 rejected messages lack their kept body/);
  });
});

describe('a crashing publisher ends its invocation in the send', () => {
  const entries: OutboxEntry[] = [{ id: 'row-1', consumer: 'ship-order', target: 'shipmentNotices', body: '{}', attributes: {}, groupId: 'g', detailType: undefined }];
  const signal = new AbortController().signal;

  function fixture(when: 'before-send' | 'after-send' | undefined) {
    const sent: string[] = [];
    const deaths: Error[] = [];
    const inner: Publisher = { fifo: true, maxBatchEntries: 10, publish: async (batch) => batch.map((entry) => (sent.push(entry.id), { kind: 'sent' as const })) };
    const publisher = crashingPublisher(inner, { invocation: { kill: (reason) => deaths.push(reason) }, crashAt: () => (when === undefined ? undefined : { when }) });
    return { sent, deaths, publisher };
  }
  const settledWithin = async (promise: Promise<unknown>, ms: number) => Promise.race([promise.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), ms))]);

  it('before the send: nothing goes, the invocation dies, and the call never answers', async () => {
    const { sent, deaths, publisher } = fixture('before-send');

    expect(await settledWithin(publisher.publish(entries, { signal }), 50)).toBe(false);
    expect(sent).toEqual([]);
    expect(deaths).toEqual([expect.any(InjectedCrashError)]);
    expect(deaths[0]!.message).toBe('injected crash before-send: the invocation died');
  });

  it('after the send: the target took the entries, then the invocation dies before any answer, and nothing more goes', async () => {
    const { sent, deaths, publisher } = fixture('after-send');

    expect(await settledWithin(publisher.publish(entries, { signal }), 50)).toBe(false);
    expect(await settledWithin(publisher.publish(entries, { signal }), 50)).toBe(false);
    expect(sent).toEqual(['row-1']);
    expect(deaths).toHaveLength(1);
  });

  it('without a crash drawn, it is the target itself', async () => {
    const { sent, deaths, publisher } = fixture(undefined);

    expect(await publisher.publish(entries, { signal })).toEqual([{ kind: 'sent' }]);
    expect(sent).toEqual(['row-1']);
    expect(deaths).toEqual([]);
    expect(publisher.fifo).toBe(true);
  });
});

describe('faults by queue', () => {
  it('asks only the faults of the queue a hook is about', () => {
    const asked: string[] = [];
    const faults = faultsByQueue({
      'orders.fifo': { failSendEntry: () => (asked.push('orders'), true) },
      'notices.fifo': { loseResponse: () => (asked.push('notices'), true) },
    });

    expect(faults.failSendEntry!({ queueName: 'orders.fifo', id: '0', body: '' })).toBe(true);
    expect(faults.failSendEntry!({ queueName: 'notices.fifo', id: '0', body: '' })).toBe(false);
    expect(faults.loseResponse!({ operation: 'SendMessageBatch', queueName: 'notices.fifo' })).toBe(true);
    expect(faults.loseResponse!({ operation: 'ListQueues', queueName: undefined })).toBe(false);
    expect(faults.deliverTwice!({ queueName: 'orders-dlq.fifo', messageId: 'm', body: '', receiveCount: 1, groupId: 'g', copies: 0 })).toBe(false);
    expect(asked).toEqual(['orders', 'notices']);
  });
});

describe('outbox run options', () => {
  it.each([
    [{ outbox: true, mode: 'transaction' as const }, /outbox runs the ship-order worker, in statement mode, but mode transaction/],
    [{ outbox: true, sendCrashRate: 2 }, /sendCrashRate must be a share from 0 to 1, but 2/],
    [{ outbox: true, relayCrashes: -1 }, /relayCrashes must be a whole number from 0/],
    [{ outbox: true, deduplicationWindowMs: 0 }, /deduplicationWindowMs must be a whole number from 1/],
    [{ unguardedNotices: true }, /unguardedNotices is a setting of the outbox run: add outbox/],
  ])('refuses %o before starting anything', async (options, message) => {
    await expect(runMainJob(options)).rejects.toThrow(LocalConfigError);
    await expect(runMainJob(options)).rejects.toThrow(message);
  });

  it('refuses the second hop on the Kafka source (npm start -- --source kafka --outbox), which would run without it', () => {
    expect(() => checkOutboxSource({ source: 'kafka', outbox: true })).toThrow(LocalConfigError);
    expect(() => checkOutboxSource({ source: 'kafka', outbox: true })).toThrow(/outbox is a second hop of the SQS main job, but source kafka/);
    expect(() => checkOutboxSource({ source: 'kafka', outbox: false })).not.toThrow();
    expect(() => checkOutboxSource({ source: 'sqs', outbox: true })).not.toThrow();
  });
});
