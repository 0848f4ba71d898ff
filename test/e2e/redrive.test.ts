import { GetQueueAttributesCommand, SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { InboxLogger, Outcome } from '../../functions/inbox/index.js';
import { inbox } from '../../functions/inbox/middleware/index.js';
import { sendMessages } from '../../functions/inbox/producer/index.js';
import { shipOrderOptions } from '../../functions/order-worker/ship-order.js';
import { redriveDeadLetters } from '../../local/sqs/index.js';
import { consumeUntilDrained, openLocalStack, type TestStack } from '../support/local-stack.js';
import { orderVersions, seedOrders } from '../support/orders.js';

const ORDERS = 8;
/** Orders whose every delete is lost: committed once, then back until SQS dead-letters them. */
const DOOMED = 3;
const MAX_RECEIVE_COUNT = 5;

/**
 * A queue whose deletes of the doomed orders' messages are always lost, and a worker that counts
 * what became of each message. `lose` can be switched off before the redrive, as when the fault
 * that filled the DLQ has been fixed.
 */
async function stackWithLostDeletes(fifo: boolean, doomed: Set<string>) {
  const faults = { lose: true };
  const local = await openLocalStack({
    fifo,
    visibilityTimeoutSeconds: 1,
    maxReceiveCount: MAX_RECEIVE_COUNT,
    sqsFaults: { failDeleteEntry: ({ body }) => faults.lose && doomed.has((JSON.parse(body) as { orderId: string }).orderId) },
  });
  return { local, faults };
}

// The kit's once-per-consumer warning of a fallback key: what these tests read is the outcomes
// (inbox-key-fallback.test.ts pins the warning itself).
const quietLogger: InboxLogger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

function worker(local: TestStack, outcomes: Outcome[], requireKeyAttribute = false) {
  return middy<SQSEvent, SQSBatchResponse>().use(inbox(shipOrderOptions(local.stack.db, {
    requireKeyAttribute,
    concurrency: 4,
    logger: quietLogger,
    onOutcome: (outcome) => outcomes.push(outcome),
  })));
}

async function dlqDepth(local: TestStack): Promise<number> {
  const { Attributes } = await local.stack.sqsClient.send(new GetQueueAttributesCommand({ QueueUrl: local.stack.deadLetterQueueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }));
  return Number(Attributes?.ApproximateNumberOfMessages);
}

async function dlqArn(local: TestStack): Promise<string> {
  const { Attributes } = await local.stack.sqsClient.send(new GetQueueAttributesCommand({ QueueUrl: local.stack.deadLetterQueueUrl, AttributeNames: ['QueueArn'] }));
  return Attributes!.QueueArn!;
}

/** Sends plain messages: a body and nothing else, as a producer that never heard of the attribute. */
async function sendWithoutAttribute(local: TestStack, orderIds: string[]): Promise<void> {
  for (let start = 0; start < orderIds.length; start += 10) {
    await local.stack.sqsClient.send(new SendMessageBatchCommand({
      QueueUrl: local.stack.queueUrl,
      Entries: orderIds.slice(start, start + 10).map((orderId, i) => ({ Id: String(i), MessageBody: JSON.stringify({ orderId }) })),
    }));
  }
}

const kinds = (outcomes: Outcome[]) => outcomes.reduce<Record<string, number>>((counts, o) => ({ ...counts, [o.kind]: (counts[o.kind] ?? 0) + 1 }), {});

describe('a committed message dead-lettered by lost deletes, then redriven', () => {
  it('with the idempotency-key attribute (FIFO, as the deployed stack): the redriven copies are duplicates, 0 double effects', async () => {
    const orderIds: string[] = [];
    const doomed = new Set<string>();
    const { local, faults } = await stackWithLostDeletes(true, doomed);
    try {
      orderIds.push(...await seedOrders(local.database.pool, ORDERS));
      orderIds.slice(0, DOOMED).forEach((id) => doomed.add(id));
      const outcomes: Outcome[] = [];
      const sent = await sendMessages(local.stack.sqsClient, local.stack.queueUrl, orderIds.map((orderId, i) => ({ body: { orderId }, key: `ship-${orderId}`, groupId: `customer-${i}` })));
      expect(sent.failed).toEqual([]);

      await consumeUntilDrained(local.stack, worker(local, outcomes));
      expect(await dlqDepth(local)).toBe(DOOMED);
      // Each doomed order was applied at its first receive; every later receive was a duplicate.
      expect(kinds(outcomes)).toEqual({ processed: ORDERS, duplicate: DOOMED * (MAX_RECEIVE_COUNT - 1) });

      faults.lose = false;
      const redrive = await redriveDeadLetters(local.stack.sqsClient, { sourceArn: await dlqArn(local), pollIntervalMs: 50 });
      expect(redrive.approximateNumberOfMessagesMoved).toBe(DOOMED);
      const afterRedrive: Outcome[] = [];
      await consumeUntilDrained(local.stack, worker(local, afterRedrive));

      expect(afterRedrive.map((o) => [o.kind, o.keyFallback])).toEqual(Array.from({ length: DOOMED }, () => ['duplicate', undefined]));
      expect(await dlqDepth(local)).toBe(0);
      expect([...(await orderVersions(local.database.pool, orderIds)).values()]).toEqual(Array.from({ length: ORDERS }, () => 1));
    } finally {
      await local.close();
    }
  }, 90_000);

  it('without the attribute the redrive applies them again, and the kit says so: every outcome carries keyFallback', async () => {
    const doomed = new Set<string>();
    const { local, faults } = await stackWithLostDeletes(false, doomed);
    try {
      const orderIds = await seedOrders(local.database.pool, ORDERS);
      orderIds.slice(0, DOOMED).forEach((id) => doomed.add(id));
      const outcomes: Outcome[] = [];
      await sendWithoutAttribute(local, orderIds);

      await consumeUntilDrained(local.stack, worker(local, outcomes));
      faults.lose = false;
      await redriveDeadLetters(local.stack.sqsClient, { sourceArn: await dlqArn(local), pollIntervalMs: 50 });
      const afterRedrive: Outcome[] = [];
      await consumeUntilDrained(local.stack, worker(local, afterRedrive));

      // A redriven message has a new messageId: keyed by the old one, it is a new claim.
      expect(afterRedrive.map((o) => [o.kind, o.keyFallback])).toEqual(Array.from({ length: DOOMED }, () => ['processed', 'messageId']));
      // Every order once at least (the doomed ones at each receive), each outcome keyed by its messageId.
      expect(outcomes.length).toBeGreaterThanOrEqual(ORDERS);
      expect(outcomes.filter((o) => o.keyFallback !== 'messageId')).toEqual([]);
      const versions = await orderVersions(local.database.pool, orderIds);
      expect(orderIds.map((id) => versions.get(id))).toEqual(orderIds.map((id) => (doomed.has(id) ? 2 : 1)));
    } finally {
      await local.close();
    }
  }, 90_000);

  it('without the attribute and with requireKeyAttribute, nothing is applied, before or after the redrive: each copy is rejected', async () => {
    const doomed = new Set<string>();
    const { local, faults } = await stackWithLostDeletes(false, doomed);
    try {
      const orderIds = await seedOrders(local.database.pool, ORDERS);
      orderIds.slice(0, DOOMED).forEach((id) => doomed.add(id));
      const outcomes: Outcome[] = [];
      await sendWithoutAttribute(local, orderIds);

      await consumeUntilDrained(local.stack, worker(local, outcomes, true));
      faults.lose = false;
      // A rejection is acknowledged too, so the doomed ones still reach the DLQ through their lost deletes.
      expect(await dlqDepth(local)).toBe(DOOMED);
      await redriveDeadLetters(local.stack.sqsClient, { sourceArn: await dlqArn(local), pollIntervalMs: 50 });
      await consumeUntilDrained(local.stack, worker(local, outcomes, true));

      expect(outcomes.filter((o) => o.kind === 'processed')).toEqual([]);
      // Each first receive and each redriven copy is a new rejection; the doomed ones' other receives are its duplicates.
      expect(kinds(outcomes)).toEqual({ rejected: ORDERS + DOOMED, duplicate: DOOMED * (MAX_RECEIVE_COUNT - 1) });
      expect([...(await orderVersions(local.database.pool, orderIds)).values()]).toEqual(Array.from({ length: ORDERS }, () => 0));
    } finally {
      await local.close();
    }
  }, 90_000);
});
