import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { Outcome } from '../../functions/inbox/index.js';
import { inbox } from '../../functions/inbox/middleware/index.js';
import { sendMessages } from '../../functions/inbox/producer/index.js';
import { shipOrderOptions } from '../../functions/order-worker/ship-order.js';
import { ORDERS, QUIET_RUN, runOnFreshDatabase } from '../support/main-job.js';
import { consumeUntilDrained, openLocalStack } from '../support/local-stack.js';
import { orderVersions, seedOrders } from '../support/orders.js';
import { testClock } from '../support/sqs.js';

// No consumer fault and a visibility timeout no batch outlasts: any duplicate comes from the producer.
const producerRetries = { ...QUIET_RUN, orders: 2 * ORDERS, producerRetryRate: 0.3, visibilityTimeoutSeconds: 10 } as const;

describe('producer retries are suppressed', () => {
  it('on a standard queue, the copies a lost answer leaves reach the worker and the inbox suppresses them', async () => {
    const { report, timesApplied } = await runOnFreshDatabase({ ...producerRetries, queue: 'standard' });

    expect(report.producerRetries.lostAnswers).toBeGreaterThan(0);
    expect(report.producerRetries.failedEntries).toBeGreaterThan(0);
    expect(report.stored).toBeGreaterThan(report.sent);
    expect(report.duplicatesSuppressed).toBeGreaterThan(0);
    expect(timesApplied).toEqual(Array.from({ length: producerRetries.orders }, () => 1));
    expect(report).toMatchObject({ doubleEffects: 0, lost: 0 });
  }, 60_000);

  it('on FIFO, SQS drops the copies inside its 5-minute deduplication window, so none reaches the worker', async () => {
    const { report, timesApplied } = await runOnFreshDatabase({ ...producerRetries, queue: 'fifo' });

    expect(report.producerRetries.lostAnswers).toBeGreaterThan(0);
    expect(report.notSent).toBe(0);
    expect(report.stored).toBe(report.sent);
    expect(report.duplicatesSuppressed).toBe(0);
    expect(timesApplied).toEqual(Array.from({ length: producerRetries.orders }, () => 1));
    expect(report).toMatchObject({ doubleEffects: 0, lost: 0 });
  }, 60_000);

  it('on FIFO, a retry after the deduplication window reaches the worker, and the inbox suppresses it', async () => {
    const clock = testClock();
    const local = await openLocalStack({ fifo: true, sqsClock: clock.now });
    try {
      const orderIds = await seedOrders(local.database.pool, 20);
      const messages = orderIds.map((orderId, i) => ({ body: { orderId }, key: `ship-${orderId}`, groupId: `customer-${i % 4}` }));
      const outcomes: Outcome[] = [];
      const handler = middy<SQSEvent, SQSBatchResponse>().use(inbox(shipOrderOptions(local.stack.db, { onOutcome: (outcome) => outcomes.push(outcome) })));

      await sendMessages(local.stack.sqsClient, local.stack.queueUrl, messages);
      await consumeUntilDrained(local.stack, handler);
      clock.advance(6 * 60);
      const resent = await sendMessages(local.stack.sqsClient, local.stack.queueUrl, messages);
      await consumeUntilDrained(local.stack, handler);

      expect(resent.failed).toEqual([]);
      expect(outcomes.filter((outcome) => outcome.kind === 'processed')).toHaveLength(20);
      expect(outcomes.filter((outcome) => outcome.kind === 'duplicate')).toHaveLength(20);
      const versions = await orderVersions(local.database.pool, orderIds);
      expect(orderIds.map((id) => versions.get(id))).toEqual(orderIds.map(() => 1));
    } finally {
      await local.close();
    }
  }, 60_000);
});
