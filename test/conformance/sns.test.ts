import { randomUUID } from 'node:crypto';
import {
  BatchEntryIdsNotDistinctException,
  BatchRequestTooLongException,
  CreateTopicCommand,
  DeleteTopicCommand,
  EmptyBatchRequestException,
  InvalidBatchEntryIdException,
  InvalidParameterException,
  NotFoundException,
  PublishBatchCommand,
  PublishCommand,
  TooManyEntriesInBatchRequestException,
  type PublishBatchRequestEntry,
  type SNSClient,
} from '@aws-sdk/client-sns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localSnsClient, startSns, type RunningSns, type SnsFaults } from '../../local/sns/index.js';

let sns: RunningSns;
let client: SNSClient;
let faults: SnsFaults = {};

beforeAll(async () => {
  sns = await startSns();
  sns.setFaults({ failEntry: (entry) => faults.failEntry?.(entry) ?? false, loseResponse: (call) => faults.loseResponse?.(call) ?? false });
  client = localSnsClient(sns.endpoint);
});

afterAll(async () => {
  client.destroy();
  await sns.close();
});

async function topic(fifo = false, attributes: Record<string, string> = {}): Promise<string> {
  const name = `notices-${randomUUID().slice(0, 8)}${fifo ? '.fifo' : ''}`;
  const { TopicArn } = await client.send(new CreateTopicCommand({ Name: name, Attributes: fifo ? { FifoTopic: 'true', ...attributes } : attributes }));
  return TopicArn!;
}

const entry = (id: string, message: string, extra: Partial<PublishBatchRequestEntry> = {}): PublishBatchRequestEntry => ({ Id: id, Message: message, ...extra });

describe('the local SNS listens on 127.0.0.1 only', () => {
  it('answers its endpoint on the loopback address', () => {
    expect(sns.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });
});

describe('CreateTopic and DeleteTopic', () => {
  it('creates standard and FIFO topics, the same ARN for the same name and settings', async () => {
    const { TopicArn } = await client.send(new CreateTopicCommand({ Name: 'orders-standard' }));
    const again = await client.send(new CreateTopicCommand({ Name: 'orders-standard' }));
    const fifo = await client.send(new CreateTopicCommand({ Name: 'orders.fifo', Attributes: { FifoTopic: 'true', ContentBasedDeduplication: 'true' } }));

    expect(TopicArn).toBe(`arn:aws:sns:us-east-1:${sns.accountId}:orders-standard`);
    expect(again.TopicArn).toBe(TopicArn);
    expect(fifo.TopicArn).toMatch(/:orders\.fifo$/);
  });

  it('refuses a FIFO topic whose name does not end in .fifo, and the other way round', async () => {
    await expect(client.send(new CreateTopicCommand({ Name: 'orders', Attributes: { FifoTopic: 'true' } }))).rejects.toBeInstanceOf(InvalidParameterException);
    await expect(client.send(new CreateTopicCommand({ Name: 'orders2.fifo' }))).rejects.toBeInstanceOf(InvalidParameterException);
  });

  it('a deleted topic is NotFound to Publish and PublishBatch (HTTP 404)', async () => {
    const arn = await topic();
    await client.send(new DeleteTopicCommand({ TopicArn: arn }));

    await expect(client.send(new PublishCommand({ TopicArn: arn, Message: 'x' }))).rejects.toBeInstanceOf(NotFoundException);
    const error = await client.send(new PublishBatchCommand({ TopicArn: arn, PublishBatchRequestEntries: [entry('0', 'x')] })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundException);
    expect((error as NotFoundException).$metadata.httpStatusCode).toBe(404);
  });
});

describe('Publish', () => {
  it('takes a message with its attributes and answers its MessageId', async () => {
    const arn = await topic();
    const { MessageId, SequenceNumber } = await client.send(new PublishCommand({
      TopicArn: arn, Message: '{"orderId":1}', MessageAttributes: { 'idempotency-key': { DataType: 'String', StringValue: 'k-1' } },
    }));

    expect(MessageId).toMatch(/^[0-9a-f-]{36}$/);
    expect(SequenceNumber).toBeUndefined();
    expect(sns.messages(arn)).toEqual([expect.objectContaining({ messageId: MessageId, message: '{"orderId":1}', attributes: { 'idempotency-key': { dataType: 'String', value: 'k-1' } } })]);
  });

  it('on a FIFO topic needs a group and a deduplication id (or content-based deduplication), and answers a sequence number', async () => {
    const arn = await topic(true);
    await expect(client.send(new PublishCommand({ TopicArn: arn, Message: 'x', MessageDeduplicationId: 'd' }))).rejects.toThrow(/MessageGroupId parameter is required/);
    await expect(client.send(new PublishCommand({ TopicArn: arn, Message: 'x', MessageGroupId: 'g' }))).rejects.toThrow(/ContentBasedDeduplication enabled or MessageDeduplicationId/);

    const { SequenceNumber } = await client.send(new PublishCommand({ TopicArn: arn, Message: 'x', MessageGroupId: 'g', MessageDeduplicationId: 'd' }));
    expect(SequenceNumber).toMatch(/^\d{20,}$/);
  });

  it('refuses a deduplication id on a standard topic and a message over the topic\'s MaximumMessageSize', async () => {
    const arn = await topic(false, { MaximumMessageSize: '1024' });
    await expect(client.send(new PublishCommand({ TopicArn: arn, Message: 'x', MessageDeduplicationId: 'd' }))).rejects.toBeInstanceOf(InvalidParameterException);
    await expect(client.send(new PublishCommand({ TopicArn: arn, Message: 'x'.repeat(1024) }))).resolves.toBeDefined();
    await expect(client.send(new PublishCommand({ TopicArn: arn, Message: 'x'.repeat(1025) }))).rejects.toThrow(/Message too long/);
  });

  it('takes a MessageGroupId on a standard topic (passed on to fair queues)', async () => {
    const arn = await topic();
    await client.send(new PublishCommand({ TopicArn: arn, Message: 'x', MessageGroupId: 'tenant-1' }));
    expect(sns.messages(arn)[0]?.groupId).toBe('tenant-1');
  });
});

describe('PublishBatch', () => {
  it('answers each entry in Successful or Failed: a FIFO entry without a group is the sender\'s fault, the others go', async () => {
    const arn = await topic(true);
    const response = await client.send(new PublishBatchCommand({
      TopicArn: arn,
      PublishBatchRequestEntries: [
        entry('a', 'one', { MessageGroupId: 'g', MessageDeduplicationId: 'd-1' }),
        entry('b', 'two', { MessageDeduplicationId: 'd-2' }),
        entry('c', 'three', { MessageGroupId: 'g', MessageDeduplicationId: 'd-3' }),
      ],
    }));

    expect(response.Successful?.map((s) => s.Id)).toEqual(['a', 'c']);
    expect(response.Successful?.every((s) => /^\d{20,}$/.test(s.SequenceNumber ?? ''))).toBe(true);
    expect(response.Failed).toEqual([{ Id: 'b', Code: 'InvalidParameter', Message: expect.stringContaining('MessageGroupId'), SenderFault: true }]);
    expect(sns.messages(arn).map((m) => m.message)).toEqual(['one', 'three']);
  });

  it('on FIFO drops a repeated deduplication id inside the window, answering the first MessageId', async () => {
    const arn = await topic(true);
    const first = await client.send(new PublishBatchCommand({ TopicArn: arn, PublishBatchRequestEntries: [entry('0', 'once', { MessageGroupId: 'g', MessageDeduplicationId: 'same' })] }));
    const again = await client.send(new PublishBatchCommand({ TopicArn: arn, PublishBatchRequestEntries: [entry('0', 'once', { MessageGroupId: 'g', MessageDeduplicationId: 'same' })] }));

    expect(again.Successful?.[0]?.MessageId).toBe(first.Successful?.[0]?.MessageId);
    expect(sns.messages(arn)).toHaveLength(1);
  });

  it.each([
    ['no entries', [], EmptyBatchRequestException],
    ['11 entries', Array.from({ length: 11 }, (_, i) => entry(String(i), 'x')), TooManyEntriesInBatchRequestException],
    ['an id twice', [entry('a', 'x'), entry('a', 'y')], BatchEntryIdsNotDistinctException],
    ['an id that is not one', [entry('not valid!', 'x')], InvalidBatchEntryIdException],
  ])('refuses a batch with %s as a whole', async (_what, entries, exception) => {
    const arn = await topic();
    await expect(client.send(new PublishBatchCommand({ TopicArn: arn, PublishBatchRequestEntries: entries }))).rejects.toBeInstanceOf(exception);
    expect(sns.messages(arn)).toEqual([]);
  });

  it('refuses a batch whose messages together pass the topic\'s MaximumMessageSize with BatchRequestTooLong', async () => {
    const arn = await topic(false, { MaximumMessageSize: '2048' });
    await expect(client.send(new PublishBatchCommand({ TopicArn: arn, PublishBatchRequestEntries: [entry('a', 'x'.repeat(1500)), entry('b', 'y'.repeat(1500))] })))
      .rejects.toBeInstanceOf(BatchRequestTooLongException);
  });
});

describe('faults', () => {
  it('failEntry answers the entry InternalError, not the sender\'s fault, and publishes nothing of it', async () => {
    const arn = await topic();
    faults = { failEntry: ({ message }) => message === 'flaky' };
    try {
      const response = await client.send(new PublishBatchCommand({ TopicArn: arn, PublishBatchRequestEntries: [entry('a', 'fine'), entry('b', 'flaky')] }));
      expect(response.Failed).toEqual([{ Id: 'b', Code: 'InternalError', Message: 'Internal Error', SenderFault: false }]);
      expect(sns.messages(arn).map((m) => m.message)).toEqual(['fine']);
    } finally {
      faults = {};
    }
  });

  it('loseResponse applies the call and answers 500: the SDK sends again, a standard topic then holds it twice, a FIFO topic once', async () => {
    const standard = await topic();
    const fifo = await topic(true);
    let lose = 2;
    faults = { loseResponse: () => lose-- > 0 };
    try {
      await client.send(new PublishCommand({ TopicArn: standard, Message: 'lost answer' }));
      lose = 1;
      await client.send(new PublishCommand({ TopicArn: fifo, Message: 'lost answer', MessageGroupId: 'g', MessageDeduplicationId: 'd' }));
    } finally {
      faults = {};
    }
    expect(sns.messages(standard)).toHaveLength(3);
    expect(sns.messages(fifo)).toHaveLength(1);
    expect(sns.stats().faults.lostResponses).toBeGreaterThanOrEqual(3);
  });
});
