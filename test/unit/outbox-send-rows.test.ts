import { describe, expect, it } from 'vitest';
import type { OutboxEntry, Publisher, PublishAnswer } from '../../functions/inbox/outbox/index.js';
import { resolvePublisher } from '../../functions/inbox/outbox/publisher.js';
import { sendRows, type QueuedRow } from '../../functions/inbox/outbox/send-rows.js';

const policy = (overrides: { remainingMs?: () => number } = {}) => ({
  attempts: 2, backoff: { baseMs: 1 }, remainingMs: overrides.remainingMs ?? (() => 60_000), marginMs: 1000, signal: new AbortController().signal,
});
const row = (id: string, groupId?: string, groupSeq: number | null = null): QueuedRow => ({
  entry: { id, consumer: 'c', target: 'shipped', body: id, attributes: {}, groupId, detailType: undefined }, groupSeq, sizeBytes: 10,
});

/** A FIFO publisher that answers by body, recording each call's entries. */
function scripted(answer: (entry: OutboxEntry) => PublishAnswer, fifo = true) {
  const calls: string[][] = [];
  const publisher: Publisher = { fifo, maxBatchEntries: 10, publish: async (entries) => { calls.push(entries.map((e) => e.id)); return entries.map(answer); } };
  return { calls, publishers: new Map([['shipped', resolvePublisher('shipped', publisher)]]) };
}

describe('a FIFO target gets one row of a group a call, each group in order', () => {
  it('interleaves the groups so a call fills up, every group in its own order', async () => {
    const { calls, publishers } = scripted(() => ({ kind: 'sent' }));
    const rows = [row('a2', 'a', 2), row('a1', 'a', 1), row('b1', 'b', 1), row('a3', 'a', 3), row('b2', 'b', 2)];

    const results = await sendRows(publishers, rows, policy());

    expect(calls).toEqual([['a1', 'b1'], ['a2', 'b2'], ['a3']]);
    expect(results).toEqual({ sent: ['a1', 'b1', 'a2', 'b2', 'a3'], refused: [], left: [] });
  });

  it('sends nothing of a group after a row that did not go; a refused row closes its place and the group goes on', async () => {
    const { calls, publishers } = scripted((entry) => (entry.id === 'a1' ? { kind: 'retry', reason: 'busy' } : entry.id === 'b1' ? { kind: 'refused', reason: 'bad' } : { kind: 'sent' }));

    const results = await sendRows(publishers, [row('a1', 'a', 1), row('a2', 'a', 2), row('b1', 'b', 1), row('b2', 'b', 2)], policy());

    expect(calls).toEqual([['a1', 'b1'], ['a1'], ['b2']]);
    expect(results.sent).toEqual(['b2']);
    expect(results.refused).toEqual([{ id: 'b1', reason: 'bad' }]);
    expect(results.left).toEqual([{ id: 'a1', reason: 'busy' }, { id: 'a2', reason: 'an earlier row of its group did not go' }]);
  });
});

describe('time and unknown targets', () => {
  it('starts no call with less than the margin left: every row is left', async () => {
    const { calls, publishers } = scripted(() => ({ kind: 'sent' }), false);

    const results = await sendRows(publishers, [row('x'), row('y')], policy({ remainingMs: () => 500 }));

    expect(calls).toEqual([]);
    expect(results.left.map(({ id }) => id)).toEqual(['x', 'y']);
  });

  it('a publisher that throws or answers too few leaves its rows to be sent again', async () => {
    const throwing: Publisher = { maxBatchEntries: 10, publish: async () => { throw new Error('socket hang up'); } };
    const short: Publisher = { maxBatchEntries: 10, publish: async (entries) => entries.slice(1).map(() => ({ kind: 'sent' })) };
    const publishers = new Map([['shipped', resolvePublisher('shipped', throwing)], ['other', resolvePublisher('other', short)]]);
    const other = { ...row('o2'), entry: { ...row('o2').entry, target: 'other' } };

    const results = await sendRows(publishers, [row('t1'), { ...row('o1'), entry: { ...row('o1').entry, target: 'other' } }, other], policy());

    expect(results.left).toEqual(expect.arrayContaining([{ id: 't1', reason: 'Error: socket hang up' }, { id: 'o2', reason: 'the publisher of target other gave no answer for this entry' }]));
    expect(results.sent).toEqual(['o1']);
  });

  it('a row whose target this run has no publisher for is left, not refused', async () => {
    const { publishers } = scripted(() => ({ kind: 'sent' }));
    const elsewhere = { ...row('z'), entry: { ...row('z').entry, target: 'gone' } };
    expect(await sendRows(publishers, [elsewhere], policy())).toEqual({ sent: [], refused: [], left: [{ id: 'z', reason: 'no publisher for target gone in this run' }] });
  });
});

describe('a call holds its rows within its bytes with the trace context each entry carries', () => {
  const TRACEPARENT = '00-5759e988bd862e3fe1be46a994272793-53995c3f42cd8ad8-01';
  const sized = (id: string, sizeBytes: number, traceparent?: string): QueuedRow => ({ ...row(id), entry: { ...row(id).entry, traceparent }, sizeBytes });
  function bounded() {
    const calls: string[][] = [];
    const publisher: Publisher = { maxBatchEntries: 10, maxMessageBytes: 1000, maxBatchBytes: 1000, publish: async (entries) => { calls.push(entries.map((e) => e.id)); return entries.map(() => ({ kind: 'sent' })); } };
    return { calls, publishers: new Map([['shipped', resolvePublisher('shipped', publisher)]]) };
  }

  it('puts rows that fit a call only without their trace contexts in calls of their own', async () => {
    const { calls, publishers } = bounded();
    await sendRows(publishers, [sized('a', 480, TRACEPARENT), sized('b', 480, TRACEPARENT)], policy());
    expect(calls).toEqual([['a'], ['b']]);
  });

  it('keeps the same rows together when they carry none', async () => {
    const { calls, publishers } = bounded();
    await sendRows(publishers, [sized('a', 480), sized('b', 480)], policy());
    expect(calls).toEqual([['a', 'b']]);
  });
});
