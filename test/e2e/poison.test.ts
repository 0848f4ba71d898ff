import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PermanentError, sql } from '../../functions/inbox/index.js';
import { inbox } from '../../functions/inbox/middleware/index.js';
import { sendMessages, type OutgoingMessage } from '../../functions/inbox/producer/index.js';
import { drainQueue } from '../../demo/local-stack.js';
import { consumeUntilDrained, openLocalStack, type TestStack } from '../support/local-stack.js';
import { inboxRows, orderVersions, seedOrders } from '../support/orders.js';

type Order = { orderId: string; kind?: 'bug' | 'cancelled' };

const MAX_RECEIVE_COUNT = 3;

describe.each([['FIFO', true], ['standard', false]] as const)('poison messages on a %s queue', (_queue, fifo) => {
  let local: TestStack;

  beforeAll(async () => {
    local = await openLocalStack({ fifo, visibilityTimeoutSeconds: 1, maxReceiveCount: MAX_RECEIVE_COUNT });
  });

  afterAll(async () => {
    await local.close();
  });

  it('rejects what can never apply, parks in the DLQ what keeps failing, and applies the rest once', async () => {
    const orderIds = await seedOrders(local.database.pool, 6);
    const [first, second, third, fourth, fifth, sixth] = orderIds as [string, string, string, string, string, string];
    const bugAttempts: string[] = [];
    const handler = middy<SQSEvent, SQSBatchResponse>().use(inbox<Order>({
      consumer: 'poison',
      db: local.stack.db,
      handle: async (order, { tx }) => {
        if (order.kind === 'bug') {
          bugAttempts.push(order.orderId);
          throw new Error('a bug in the handler');
        }
        if (order.kind === 'cancelled') throw new PermanentError(`order ${order.orderId} was cancelled`);
        await tx.query(sql`UPDATE orders SET version = version + 1 WHERE order_id = ${sql.uuid(order.orderId)}`);
      },
    }));
    // On FIFO, the rejected ones sit inside a group, ahead of messages that must still apply; the
    // failing one is last of its group, so nothing waits behind it.
    const messages: OutgoingMessage[] = [
      { body: { orderId: first }, key: 'first', groupId: 'a' },
      { body: '{"orderId": ', key: 'not-json', groupId: 'a' },
      { body: { orderId: second, kind: 'cancelled' }, key: 'cancelled', groupId: 'a' },
      { body: { orderId: third }, key: 'third', groupId: 'a' },
      { body: { orderId: fourth }, key: 'fourth', groupId: 'b' },
      { body: { orderId: fifth, kind: 'bug' }, key: 'bug', groupId: 'b' },
      { body: { orderId: sixth }, key: 'sixth', groupId: 'c' },
    ].map(({ groupId, ...message }) => (fifo ? { ...message, groupId } : message));

    const { failed } = await sendMessages(local.stack.sqsClient, local.stack.queueUrl, messages);
    await consumeUntilDrained(local.stack, handler, { pollers: 2 });
    const parked = await drainQueue(local.stack.sqsClient, local.stack.deadLetterQueueUrl);
    const rows = await inboxRows(local.database.pool, 'poison');

    expect(failed).toEqual([]);
    expect(rows.get('not-json')).toMatchObject({ status: 'rejected', error: expect.stringMatching(/^SyntaxError: .*JSON/) });
    expect(rows.get('cancelled')).toMatchObject({ status: 'rejected', error: `PermanentError: order ${second} was cancelled` });
    expect(parked.map((message) => message.MessageAttributes?.['idempotency-key']?.StringValue)).toEqual(['bug']);
    expect(bugAttempts).toHaveLength(MAX_RECEIVE_COUNT);
    expect(rows.has('bug')).toBe(false);
    const versions = await orderVersions(local.database.pool, orderIds);
    expect([first, third, fourth, sixth].map((id) => versions.get(id))).toEqual([1, 1, 1, 1]);
    expect([second, fifth].map((id) => versions.get(id))).toEqual([0, 0]);
    expect([...rows.keys()].sort()).toEqual(['cancelled', 'first', 'fourth', 'not-json', 'sixth', 'third']);
  }, 60_000);
});
