import { createHash } from 'node:crypto';
import { SendMessageBatchCommand, SQSClient, SQSServiceException, type SendMessageBatchCommandInput, type SendMessageBatchRequestEntry } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { InboxConfigError } from '../../functions/inbox/index.js';
import { uuidv7 } from '../../functions/inbox/internal.js';
import { sendMessages } from '../../functions/inbox/producer/index.js';

const STANDARD = 'https://sqs.us-east-1.amazonaws.com/123456789012/orders';
const FIFO = 'https://sqs.us-east-1.amazonaws.com/123456789012/orders.fifo';
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const sqs = mockClient(SQSClient);
const client = new SQSClient({ region: 'us-east-1' });

afterEach(() => {
  sqs.reset();
});

/** SQS taking every entry of every call. */
function acceptAll() {
  sqs.on(SendMessageBatchCommand).callsFake((input: SendMessageBatchCommandInput) => ({
    Successful: (input.Entries ?? []).map((entry) => ({ Id: entry.Id, MessageId: `m-${entry.Id}`, MD5OfMessageBody: '' })),
    Failed: [],
  }));
}

const entriesOfCall = (index: number): SendMessageBatchRequestEntry[] => sqs.commandCalls(SendMessageBatchCommand)[index]!.args[0].input.Entries ?? [];
const keyOf = (entry: SendMessageBatchRequestEntry) => entry.MessageAttributes?.['idempotency-key']?.StringValue;
const serverError = (message: string) => new SQSServiceException({ name: 'InternalError', $fault: 'server', $metadata: { httpStatusCode: 500 }, message });

describe('every message carries a stable idempotency key', () => {
  it('sets the idempotency-key string attribute, a new UUIDv7 when no key is given', async () => {
    acceptAll();
    const result = await sendMessages(client, STANDARD, [{ body: 'a' }, { body: 'b', key: 'order-2' }]);
    const entries = entriesOfCall(0);
    expect(entries.map((entry) => entry.MessageAttributes?.['idempotency-key'])).toEqual([
      { DataType: 'String', StringValue: result.keys[0] },
      { DataType: 'String', StringValue: 'order-2' },
    ]);
    expect(result.keys[0]).toMatch(UUID_V7);
    expect(entries[0]?.MessageDeduplicationId).toBeUndefined();
  });

  it('takes the key from an idempotency-key attribute when no key is given', async () => {
    acceptAll();
    const result = await sendMessages(client, STANDARD, [{ body: 'a', attributes: { 'idempotency-key': { DataType: 'String', StringValue: 'given' } } }]);
    expect(result.keys).toEqual(['given']);
  });

  it('on FIFO, sends the key as MessageDeduplicationId, or its sha-256 when it is no valid deduplication id', async () => {
    acceptAll();
    const long = 'k'.repeat(200);
    await sendMessages(client, FIFO, [{ body: 'a', key: 'order-1', groupId: 'c-1' }, { body: 'b', key: long, groupId: 'c-2' }]);
    const entries = entriesOfCall(0);
    expect(entries.map((entry) => [entry.MessageGroupId, entry.MessageDeduplicationId])).toEqual([
      ['c-1', 'order-1'],
      ['c-2', createHash('sha256').update(long).digest('hex')],
    ]);
    expect(keyOf(entries[1]!)).toBe(long);
  });

  it('sends an object body as JSON and keeps the caller\'s other attributes', async () => {
    acceptAll();
    await sendMessages(client, STANDARD, [{ body: { orderId: 1 }, attributes: { source: { DataType: 'String', StringValue: 'web' } } }]);
    const [entry] = entriesOfCall(0);
    expect(entry?.MessageBody).toBe('{"orderId":1}');
    expect(entry?.MessageAttributes?.['source']).toEqual({ DataType: 'String', StringValue: 'web' });
  });
});

describe('batches of at most 10 entries and 1 MiB, in order', () => {
  it('sends 25 messages as 10, 10 and 5', async () => {
    acceptAll();
    const result = await sendMessages(client, STANDARD, Array.from({ length: 25 }, (_, i) => ({ body: `m${i}` })));
    expect(sqs.commandCalls(SendMessageBatchCommand).map((call) => call.args[0].input.Entries?.length)).toEqual([10, 10, 5]);
    expect(entriesOfCall(2).map((entry) => entry.MessageBody)).toEqual(['m20', 'm21', 'm22', 'm23', 'm24']);
    expect(result.sent.map((sent) => sent.index)).toEqual(Array.from({ length: 25 }, (_, i) => i));
  });

  it('starts a new batch before the bodies and attributes pass 1 MiB', async () => {
    acceptAll();
    await sendMessages(client, STANDARD, [0, 1, 2].map(() => ({ body: 'x'.repeat(400_000) })));
    expect(sqs.commandCalls(SendMessageBatchCommand).map((call) => call.args[0].input.Entries?.length)).toEqual([2, 1]);
  });

  it('on FIFO, starts a new batch rather than put a second message of a group in one', async () => {
    acceptAll();
    await sendMessages(client, FIFO, ['a', 'b', 'a', 'c', 'd', 'c'].map((groupId, i) => ({ body: `m${i}`, groupId })));
    expect(sqs.commandCalls(SendMessageBatchCommand).map((call) => call.args[0].input.Entries?.map((entry) => entry.MessageGroupId))).toEqual([
      ['a', 'b'], ['a', 'c', 'd'], ['c'],
    ]);
  });
});

describe('only failed entries are retried, with the same keys', () => {
  it('sends again only the entries SQS failed on its side, unchanged', async () => {
    sqs.on(SendMessageBatchCommand)
      .resolvesOnce({
        Successful: [{ Id: '0', MessageId: 'm-0', MD5OfMessageBody: '' }, { Id: '2', MessageId: 'm-2', MD5OfMessageBody: '' }],
        Failed: [{ Id: '1', SenderFault: false, Code: 'InternalError', Message: 'try again' }],
      })
      .resolves({ Successful: [{ Id: '1', MessageId: 'm-1', MD5OfMessageBody: '' }], Failed: [] });
    const result = await sendMessages(client, FIFO, [0, 1, 2].map((i) => ({ body: `m${i}`, groupId: `g${i}` })), { baseDelayMs: 1 });
    expect(entriesOfCall(1)).toEqual([entriesOfCall(0)[1]]);
    expect(result.sent.map((sent) => sent.messageId)).toEqual(['m-0', 'm-1', 'm-2']);
    expect(result.failed).toEqual([]);
  });

  it('does not retry an entry refused as the sender\'s fault', async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [{ Id: '0', SenderFault: true, Code: 'InvalidParameterValue', Message: 'bad' }] });
    const result = await sendMessages(client, STANDARD, [{ body: 'a' }]);
    expect(sqs.commandCalls(SendMessageBatchCommand)).toHaveLength(1);
    expect(result.failed).toEqual([{ index: 0, key: result.keys[0], code: 'InvalidParameterValue', message: 'bad', senderFault: true, attempts: 1 }]);
  });

  it('gives up after maxAttempts and reports the entry failed', async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [{ Id: '0', SenderFault: false, Code: 'InternalError', Message: 'busy' }] });
    const result = await sendMessages(client, STANDARD, [{ body: 'a', key: 'k' }], { maxAttempts: 3, baseDelayMs: 1 });
    expect(sqs.commandCalls(SendMessageBatchCommand)).toHaveLength(3);
    expect(result.failed).toEqual([{ index: 0, key: 'k', code: 'InternalError', message: 'busy', senderFault: false, attempts: 3 }]);
  });

  it('retries a whole batch whose call failed on the server side, and not one refused as the caller\'s', async () => {
    sqs.on(SendMessageBatchCommand).rejectsOnce(serverError('down')).callsFake((input: SendMessageBatchCommandInput) => ({
      Successful: (input.Entries ?? []).map((entry) => ({ Id: entry.Id, MessageId: `m-${entry.Id}`, MD5OfMessageBody: '' })),
      Failed: [],
    }));
    const retried = await sendMessages(client, STANDARD, [{ body: 'a' }, { body: 'b' }], { baseDelayMs: 1 });
    expect(entriesOfCall(1)).toEqual(entriesOfCall(0));
    expect(retried.sent).toHaveLength(2);

    sqs.reset();
    sqs.on(SendMessageBatchCommand).rejects(new SQSServiceException({ name: 'QueueDoesNotExist', $fault: 'client', $metadata: { httpStatusCode: 400 }, message: 'no queue' }));
    const refused = await sendMessages(client, STANDARD, [{ body: 'a' }]);
    expect(sqs.commandCalls(SendMessageBatchCommand)).toHaveLength(1);
    expect(refused.failed).toMatchObject([{ code: 'QueueDoesNotExist', senderFault: true }]);
  });
});

describe('a message that cannot be sent is reported, not thrown, and not sent', () => {
  it('refuses a FIFO message without groupId, an empty body, a bad key and a message over 1 MiB', async () => {
    acceptAll();
    const result = await sendMessages(client, FIFO, [
      { body: 'no group' },
      { body: '', groupId: 'g' },
      { body: 'empty key', key: '', groupId: 'g' },
      { body: 'x'.repeat(1_048_576), groupId: 'g' },
      { body: 'fine', groupId: 'g' },
    ]);
    expect(result.failed.map((failure) => [failure.index, failure.code])).toEqual([
      [0, 'InvalidMessage'], [1, 'InvalidMessage'], [2, 'InvalidMessage'], [3, 'MessageTooLong'],
    ]);
    expect(entriesOfCall(0).map((entry) => entry.MessageBody)).toEqual(['fine']);
  });

  it('throws InboxConfigError for a call that cannot work at all', async () => {
    await expect(sendMessages(client, '', [])).rejects.toBeInstanceOf(InboxConfigError);
    await expect(sendMessages(client, STANDARD, 'not an array' as never)).rejects.toBeInstanceOf(InboxConfigError);
    await expect(sendMessages(client, STANDARD, [], { maxAttempts: 0 })).rejects.toBeInstanceOf(InboxConfigError);
  });
});

describe('uuidv7', () => {
  it('is a version 7 UUID whose first 48 bits are the milliseconds', () => {
    const key = uuidv7(0x0189_abcd_ef01);
    expect(key).toMatch(UUID_V7);
    expect(key.slice(0, 13)).toBe('0189abcd-ef01');
  });

  it('sorts by time across milliseconds and does not repeat', () => {
    const keys = Array.from({ length: 1000 }, (_, i) => uuidv7(1_700_000_000_000 + i));
    expect([...keys].sort()).toEqual(keys);
    expect(new Set(Array.from({ length: 10_000 }, () => uuidv7())).size).toBe(10_000);
  });
});
