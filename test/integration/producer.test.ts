import { ReceiveMessageCommand, type Message } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendMessages } from '../../functions/inbox/producer/index.js';
import { drainQueue } from '../../demo/local-stack.js';
import { queueName, startTestSqs, type TestSqs } from '../support/sqs.js';

let local: TestSqs;
let failFirstTry = new Set<string>();
let loseNextBatch = false;

beforeAll(async () => {
  local = await startTestSqs({
    faults: {
      // Fails an entry whose body is marked, once: the producer's retry then goes through.
      failSendEntry: ({ body }) => failFirstTry.delete(body),
      loseResponse: ({ operation }) => {
        if (operation !== 'SendMessageBatch' || !loseNextBatch) return false;
        loseNextBatch = false;
        return true;
      },
    },
  });
});

afterAll(async () => {
  await local.close();
});

/** Every message in the queue, received once each (visibility long enough not to see one twice). */
async function drain(queueUrl: string): Promise<Message[]> {
  const all: Message[] = [];
  for (;;) {
    const { Messages } = await local.client.send(new ReceiveMessageCommand({
      QueueUrl: queueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 60, MessageAttributeNames: ['All'], MessageSystemAttributeNames: ['All'],
    }));
    if (!Messages || Messages.length === 0) return all;
    all.push(...Messages);
  }
}

const keyOf = (message: Message) => message.MessageAttributes?.['idempotency-key']?.StringValue;

describe('sendMessages against the emulator', () => {
  it('delivers every message with the idempotency key it reported', async () => {
    const queueUrl = await local.createQueue(queueName('producer'));
    const result = await sendMessages(local.client, queueUrl, Array.from({ length: 25 }, (_, i) => ({ body: { orderId: i } })));
    expect(result.failed).toEqual([]);
    const received = await drain(queueUrl);
    expect(received.map(keyOf).sort()).toEqual([...result.keys].sort());
    expect(new Set(result.keys).size).toBe(25);
  });

  it('fits large messages into batches SQS takes (it refuses a batch over 1 MiB)', async () => {
    const queueUrl = await local.createQueue(queueName('producer-large'));
    const result = await sendMessages(local.client, queueUrl, [0, 1, 2, 3].map((i) => ({ body: `${i}`.repeat(400_000) })));
    expect(result.failed).toEqual([]);
    expect(await drain(queueUrl)).toHaveLength(4);
  });

  it('retries only the entries SQS failed, with the same keys, so each message is in the queue once', async () => {
    const queueUrl = await local.createQueue(queueName('producer-retry'));
    const bodies = Array.from({ length: 12 }, (_, i) => `order-${i}`);
    failFirstTry = new Set(['order-3', 'order-11']);
    const before = local.sqs.stats().faults.failedSendEntries;
    const result = await sendMessages(local.client, queueUrl, bodies.map((body) => ({ body })), { baseDelayMs: 1 });
    expect(local.sqs.stats().faults.failedSendEntries - before).toBe(2);
    expect(result.failed).toEqual([]);
    const received = await drain(queueUrl);
    expect(received.map((message) => message.Body).sort()).toEqual([...bodies].sort());
    expect(received.map((message) => [message.Body, keyOf(message)]).sort()).toEqual(bodies.map((body, i) => [body, result.keys[i]]).sort());
  });

  it('on a standard queue, a retried call whose answer was lost leaves copies with the same key for the inbox to suppress', async () => {
    const queueUrl = await local.createQueue(queueName('producer-lost'));
    loseNextBatch = true;
    const result = await sendMessages(local.client, queueUrl, [{ body: 'a' }, { body: 'b' }]);
    const received = await drain(queueUrl);
    expect(received).toHaveLength(4);
    expect(new Set(received.map(keyOf))).toEqual(new Set(result.keys));
  });

  it('on FIFO, SQS drops a producer retry of the same keys inside the deduplication window', async () => {
    const queueUrl = await local.createQueue(queueName('producer-fifo', true));
    const messages = Array.from({ length: 6 }, (_, i) => ({ body: { orderId: i }, key: `order-${i}`, groupId: `customer-${i % 2}` }));
    await sendMessages(local.client, queueUrl, messages);
    loseNextBatch = true;
    await sendMessages(local.client, queueUrl, messages);
    const received = await drain(queueUrl);
    expect(received.map((message) => [message.Attributes?.MessageGroupId, message.Attributes?.MessageDeduplicationId])).toEqual([
      ['customer-0', 'order-0'], ['customer-0', 'order-2'], ['customer-0', 'order-4'],
      ['customer-1', 'order-1'], ['customer-1', 'order-3'], ['customer-1', 'order-5'],
    ]);
  });

  it('on FIFO, an entry SQS failed is retried before any later message of its group is sent, so the group keeps its order', async () => {
    const queueUrl = await local.createQueue(queueName('producer-fifo-order', true));
    const messages = Array.from({ length: 12 }, (_, i) => ({ body: `step-${i}`, key: `step-${i}`, groupId: `customer-${i % 3}` }));
    failFirstTry = new Set(['step-0', 'step-4', 'step-8']);
    const result = await sendMessages(local.client, queueUrl, messages, { baseDelayMs: 1 });
    expect(result.failed).toEqual([]);
    // Deleting as it goes, or FIFO would hold each group after its first receive.
    const received = await drainQueue(local.client, queueUrl);
    const bodiesOf = (group: string) => received.filter((message) => message.Attributes?.MessageGroupId === group).map((message) => message.Body);
    expect(bodiesOf('customer-0')).toEqual(['step-0', 'step-3', 'step-6', 'step-9']);
    expect(bodiesOf('customer-1')).toEqual(['step-1', 'step-4', 'step-7', 'step-10']);
    expect(bodiesOf('customer-2')).toEqual(['step-2', 'step-5', 'step-8', 'step-11']);
  });

  it('reports a message over 1 MiB as failed and sends the rest', async () => {
    const queueUrl = await local.createQueue(queueName('producer-too-long'));
    const result = await sendMessages(local.client, queueUrl, [{ body: 'x'.repeat(1_048_576) }, { body: 'small' }]);
    expect(result.failed.map((failure) => [failure.index, failure.code])).toEqual([[0, 'MessageTooLong']]);
    expect((await drain(queueUrl)).map((message) => message.Body)).toEqual(['small']);
  });
});
