import { createHash } from 'node:crypto';
import net from 'node:net';
import {
  BatchEntryIdsNotDistinct,
  BatchRequestTooLong,
  ChangeMessageVisibilityBatchCommand,
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  EmptyBatchRequest,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  InvalidAttributeName,
  InvalidAttributeValue,
  InvalidBatchEntryId,
  InvalidMessageContents,
  ListQueuesCommand,
  MessageNotInflight,
  PurgeQueueCommand,
  PurgeQueueInProgress,
  QueueDoesNotExist,
  QueueNameExists,
  ReceiptHandleIsInvalid,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  TooManyEntriesInBatchRequest,
  UnsupportedOperation,
  type Message,
  type QueueAttributeName,
  type ReceiveMessageCommandInput,
  type SendMessageCommandInput,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSqs, type FaultMessage } from '../../local/sqs/index.js';
import { LocalConfigError } from '../../local/internal.js';
import { frozenClock, queueName, startTestSqs, type TestSqs } from '../support/sqs.js';

let local: TestSqs;

beforeAll(async () => {
  local = await startTestSqs();
});

afterAll(async () => {
  await local.close();
});

const newQueue = (prefix: string, attributes: Record<string, string> = {}) => local.createQueue(queueName(prefix), attributes);
const newFifoQueue = (prefix: string, attributes: Record<string, string> = {}) => local.createQueue(queueName(prefix, true), attributes);

function send(QueueUrl: string, MessageBody: string, extra: Partial<SendMessageCommandInput> = {}) {
  return local.client.send(new SendMessageCommand({ QueueUrl, MessageBody, ...extra }));
}

async function receive(QueueUrl: string, extra: Partial<ReceiveMessageCommandInput> = {}): Promise<Message[]> {
  const { Messages } = await local.client.send(new ReceiveMessageCommand({
    QueueUrl, MaxNumberOfMessages: 10, MessageSystemAttributeNames: ['All'], MessageAttributeNames: ['All'], ...extra,
  }));
  return Messages ?? [];
}

async function queueAttributes(QueueUrl: string): Promise<Record<string, string>> {
  const { Attributes } = await local.client.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['All'] }));
  return Attributes ?? {};
}

const bodies = (messages: Message[]) => messages.map((message) => message.Body);
const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

async function rawCall(target: string | undefined, body: string): Promise<{ status: number; json: Record<string, unknown>; queryError: string | null }> {
  const headers: Record<string, string> = { 'content-type': 'application/x-amz-json-1.0' };
  if (target !== undefined) headers['x-amz-target'] = target;
  const response = await fetch(`${local.sqs.endpoint}/`, { method: 'POST', headers, body });
  return { status: response.status, json: await response.json() as Record<string, unknown>, queryError: response.headers.get('x-amzn-query-error') };
}

describe('the server: AWS JSON 1.0 on 127.0.0.1 only, serving on after any error', () => {
  it('listens on 127.0.0.1 and nowhere else on the machine', async () => {
    const { hostname, port } = new URL(local.sqs.endpoint);
    expect(hostname).toBe('127.0.0.1');
    const connected = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ host: '127.0.0.2', port: Number(port) }, () => { socket.destroy(); resolve(true); });
      socket.on('error', () => resolve(false));
    });
    expect(connected).toBe(false);
  });

  it('answers errors with __type, message and the x-amzn-query-error header', async () => {
    const answer = await rawCall('AmazonSQS.GetQueueUrl', JSON.stringify({ QueueName: 'no-such-queue' }));
    expect(answer).toEqual({
      status: 400,
      json: { __type: 'com.amazonaws.sqs#QueueDoesNotExist', message: 'The specified queue does not exist.' },
      queryError: 'AWS.SimpleQueueService.NonExistentQueue;Sender',
    });
  });

  it('refuses a body that is not JSON, an unknown target and an operation it lacks, then serves the next call', async () => {
    expect((await rawCall('AmazonSQS.SendMessage', '{not json')).json['__type']).toBe('com.amazon.coral.service#SerializationException');
    expect((await rawCall(undefined, '{}')).json['__type']).toBe('com.amazon.coral.service#UnknownOperationException');
    await expect(local.client.send(new ListQueuesCommand({}))).rejects.toBeInstanceOf(UnsupportedOperation);
    const queueUrl = await newQueue('after-errors');
    await send(queueUrl, 'still serving');
    expect(bodies(await receive(queueUrl))).toEqual(['still serving']);
  });
});

describe('CreateQueue and GetQueueUrl', () => {
  it('creates a queue at http://127.0.0.1:PORT/<account>/<name> that GetQueueUrl finds', async () => {
    const name = queueName('created');
    const { QueueUrl } = await local.client.send(new CreateQueueCommand({ QueueName: name }));
    expect(QueueUrl).toBe(`${local.sqs.endpoint}/000000000000/${name}`);
    expect((await local.client.send(new GetQueueUrlCommand({ QueueName: name }))).QueueUrl).toBe(QueueUrl);
  });

  it('answers the same URL for the same attributes, and QueueNameExists for different ones', async () => {
    const name = queueName('idempotent');
    const first = await local.createQueue(name, { VisibilityTimeout: '5' });
    expect(await local.createQueue(name, { VisibilityTimeout: '5' })).toBe(first);
    await expect(local.createQueue(name, { VisibilityTimeout: '6' })).rejects.toBeInstanceOf(QueueNameExists);
  });

  it('refuses unknown attributes, values out of range and FIFO attributes on a standard queue', async () => {
    await expect(newQueue('bad', { Colour: 'blue' })).rejects.toBeInstanceOf(InvalidAttributeName);
    await expect(newQueue('bad', { VisibilityTimeout: '43201' })).rejects.toBeInstanceOf(InvalidAttributeValue);
    await expect(newQueue('bad', { MessageRetentionPeriod: '59' })).rejects.toBeInstanceOf(InvalidAttributeValue);
    await expect(newQueue('bad', { ReceiveMessageWaitTimeSeconds: '21' })).rejects.toBeInstanceOf(InvalidAttributeValue);
    await expect(newQueue('bad', { DelaySeconds: '901' })).rejects.toBeInstanceOf(InvalidAttributeValue);
    await expect(newQueue('bad', { ContentBasedDeduplication: 'true' })).rejects.toBeInstanceOf(InvalidAttributeName);
  });

  it('refuses a bad queue name, and a .fifo name without FifoQueue', async () => {
    await expect(local.client.send(new CreateQueueCommand({ QueueName: 'has space' }))).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    await expect(local.client.send(new CreateQueueCommand({ QueueName: queueName('x', true) }))).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    await expect(local.client.send(new CreateQueueCommand({ QueueName: 'x'.repeat(81) }))).rejects.toMatchObject({ name: 'InvalidParameterValue' });
  });

  it('answers QueueDoesNotExist for an unknown queue name or URL', async () => {
    await expect(local.client.send(new GetQueueUrlCommand({ QueueName: 'never-created' }))).rejects.toBeInstanceOf(QueueDoesNotExist);
    await expect(send(`${local.sqs.endpoint}/000000000000/never-created`, 'x')).rejects.toBeInstanceOf(QueueDoesNotExist);
  });
});

describe('GetQueueAttributes', () => {
  it('reports the ARN, the attributes set and the messages visible, in flight and delayed', async () => {
    const queueUrl = await newQueue('counted', { VisibilityTimeout: '7', MessageRetentionPeriod: '600' });
    await send(queueUrl, 'will be in flight');
    await receive(queueUrl);
    await send(queueUrl, 'visible');
    await send(queueUrl, 'delayed', { DelaySeconds: 30 });
    expect(await queueAttributes(queueUrl)).toMatchObject({
      QueueArn: `arn:aws:sqs:us-east-1:000000000000:${queueUrl.split('/').pop()}`,
      VisibilityTimeout: '7',
      MessageRetentionPeriod: '600',
      ApproximateNumberOfMessages: '1',
      ApproximateNumberOfMessagesNotVisible: '1',
      ApproximateNumberOfMessagesDelayed: '1',
    });
  });

  it('answers only the attributes asked for, and refuses an unknown name', async () => {
    const queueUrl = await newQueue('some-attributes');
    const { Attributes } = await local.client.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }));
    expect(Object.keys(Attributes ?? {})).toEqual(['QueueArn']);
    await expect(local.client.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['Colour' as 'All'] }))).rejects.toBeInstanceOf(InvalidAttributeName);
  });
});

describe('SendMessage and the checksums the SDK validates', () => {
  it('answers MD5OfMessageBody of the UTF-8 body (the SDK refuses a wrong one) and a MessageId', async () => {
    const queueUrl = await newQueue('md5');
    const sent = await send(queueUrl, 'grüße ✓');
    expect(sent.MD5OfMessageBody).toBe(md5('grüße ✓'));
    expect(sent.MessageId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('computes MD5OfMessageAttributes as SQS does (the published example value)', async () => {
    const queueUrl = await newQueue('md5-attributes');
    const sent = await send(queueUrl, 'x', { MessageAttributes: { SellerName: { DataType: 'String', StringValue: 'Example Store' } } });
    expect(sent.MD5OfMessageAttributes).toBe('cd28f3b68aeee4b2eac9c66f2f694b58');
    const [received] = await receive(queueUrl);
    expect(received?.MD5OfMessageAttributes).toBe('cd28f3b68aeee4b2eac9c66f2f694b58');
  });

  it('refuses an empty body (MissingParameter) and characters SQS does not take (InvalidMessageContents)', async () => {
    const queueUrl = await newQueue('bad-body');
    await expect(send(queueUrl, '')).rejects.toMatchObject({ name: 'MissingParameter' });
    await expect(send(queueUrl, 'bell \u0007')).rejects.toBeInstanceOf(InvalidMessageContents);
  });

  it('takes a message of exactly 1 MiB (SQS since 2025) and refuses one byte more, attributes counted', async () => {
    const queueUrl = await newQueue('size');
    await expect(send(queueUrl, 'x'.repeat(1_048_576))).resolves.toMatchObject({ MessageId: expect.any(String) });
    await expect(send(queueUrl, 'x'.repeat(1_048_577))).rejects.toMatchObject({ name: 'InvalidParameterValue', message: expect.stringContaining('1048576 bytes') });
    // 'k' + 'String' + 'v' are 8 bytes.
    const attributes = { k: { DataType: 'String', StringValue: 'v' } };
    await expect(send(queueUrl, 'x'.repeat(1_048_568), { MessageAttributes: attributes })).resolves.toMatchObject({ MessageId: expect.any(String) });
    await expect(send(queueUrl, 'x'.repeat(1_048_569), { MessageAttributes: attributes })).rejects.toMatchObject({ name: 'InvalidParameterValue' });
  });

  it('honours a lower MaximumMessageSize of the queue', async () => {
    const queueUrl = await newQueue('small', { MaximumMessageSize: '1024' });
    await expect(send(queueUrl, 'x'.repeat(1025))).rejects.toMatchObject({ name: 'InvalidParameterValue' });
  });

  it('refuses bad parameters with InvalidParameterValue', async () => {
    const queueUrl = await newQueue('bad-parameters');
    await expect(send(queueUrl, 'x', { DelaySeconds: 901 })).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    await expect(send(queueUrl, 'x', { MessageDeduplicationId: 'd' })).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    const eleven = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`a${i}`, { DataType: 'String', StringValue: 'v' }]));
    await expect(send(queueUrl, 'x', { MessageAttributes: eleven })).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    await expect(send(queueUrl, 'x', { MessageAttributes: { 'AWS.reserved': { DataType: 'String', StringValue: 'v' } } })).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    await expect(send(queueUrl, 'x', { MessageAttributes: { n: { DataType: 'Number', StringValue: 'twelve' } } })).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    await expect(send(queueUrl, 'x', { MessageAttributes: { s: { DataType: 'String', StringValue: '' } } })).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    await expect(send(queueUrl, 'x', { MessageAttributes: { t: { DataType: 'Text', StringValue: 'v' } } })).rejects.toMatchObject({ name: 'InvalidParameterValue' });
  });
});

describe('SendMessageBatch', () => {
  it('answers each entry in Successful with its checksums, and a bad entry in Failed', async () => {
    const queueUrl = await newQueue('batch');
    const result = await local.client.send(new SendMessageBatchCommand({
      QueueUrl: queueUrl,
      Entries: [
        { Id: 'a', MessageBody: 'first', MessageAttributes: { k: { DataType: 'String', StringValue: 'v' } } },
        { Id: 'b', MessageBody: 'second', DelaySeconds: 901 },
        { Id: 'c', MessageBody: 'third' },
      ],
    }));
    expect(result.Successful?.map((entry) => [entry.Id, entry.MD5OfMessageBody])).toEqual([['a', md5('first')], ['c', md5('third')]]);
    expect(result.Successful?.[0]?.MD5OfMessageAttributes).toMatch(/^[0-9a-f]{32}$/);
    expect(result.Failed).toEqual([expect.objectContaining({ Id: 'b', Code: 'InvalidParameterValue', SenderFault: true })]);
    expect(bodies(await receive(queueUrl))).toEqual(['first', 'third']);
  });

  it('refuses more than 10 entries, no entry, a repeated id and a bad id', async () => {
    const queueUrl = await newQueue('batch-rules');
    const entries = (count: number) => Array.from({ length: count }, (_, i) => ({ Id: `e${i}`, MessageBody: 'x' }));
    await expect(local.client.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries(11) }))).rejects.toBeInstanceOf(TooManyEntriesInBatchRequest);
    await expect(local.client.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: [] }))).rejects.toBeInstanceOf(EmptyBatchRequest);
    await expect(local.client.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: [{ Id: 'same', MessageBody: 'x' }, { Id: 'same', MessageBody: 'y' }] })))
      .rejects.toBeInstanceOf(BatchEntryIdsNotDistinct);
    await expect(local.client.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: [{ Id: 'not ok!', MessageBody: 'x' }] }))).rejects.toBeInstanceOf(InvalidBatchEntryId);
    expect(await receive(queueUrl)).toEqual([]);
  });

  it('refuses a batch over 1 MiB in all with BatchRequestTooLong', async () => {
    const queueUrl = await newQueue('batch-size');
    const entries = [0, 1].map((i) => ({ Id: `e${i}`, MessageBody: 'x'.repeat(540_000) }));
    await expect(local.client.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }))).rejects.toBeInstanceOf(BatchRequestTooLong);
  });
});

describe('ReceiveMessage', () => {
  it('returns the body, MD5OfBody and the system attributes asked for with All', async () => {
    const queueUrl = await newQueue('system-attributes');
    const before = local.clock.now();
    await send(queueUrl, 'hello');
    const [message] = await receive(queueUrl);
    expect(message).toMatchObject({ Body: 'hello', MD5OfBody: md5('hello') });
    expect(message?.Attributes).toMatchObject({ ApproximateReceiveCount: '1', SenderId: '000000000000' });
    expect(Number(message?.Attributes?.SentTimestamp)).toBeGreaterThanOrEqual(before);
    expect(Number(message?.Attributes?.ApproximateFirstReceiveTimestamp)).toBeGreaterThanOrEqual(Number(message?.Attributes?.SentTimestamp));
  });

  it('returns only the system attributes named, from MessageSystemAttributeNames or the older AttributeNames', async () => {
    const queueUrl = await newQueue('named-attributes');
    await send(queueUrl, 'a');
    await send(queueUrl, 'b');
    const [first] = await receive(queueUrl, { MaxNumberOfMessages: 1, MessageSystemAttributeNames: ['ApproximateReceiveCount'] });
    expect(Object.keys(first?.Attributes ?? {})).toEqual(['ApproximateReceiveCount']);
    const [second] = await receive(queueUrl, { MaxNumberOfMessages: 1, MessageSystemAttributeNames: undefined, AttributeNames: ['SentTimestamp' as QueueAttributeName] });
    expect(Object.keys(second?.Attributes ?? {})).toEqual(['SentTimestamp']);
  });

  it('returns the message attributes asked for (All, names, prefix.*) with the MD5 of those returned', async () => {
    const queueUrl = await newQueue('message-attributes');
    const MessageAttributes = {
      'order.id': { DataType: 'String', StringValue: 'o-1' },
      'order.total': { DataType: 'Number', StringValue: '12.50' },
      blob: { DataType: 'Binary', BinaryValue: new Uint8Array([0, 1, 254, 255]) },
    };
    await send(queueUrl, 'a', { MessageAttributes });
    const [all] = await receive(queueUrl, { VisibilityTimeout: 0 });
    expect(all?.MessageAttributes?.['order.total']).toEqual({ DataType: 'Number', StringValue: '12.50' });
    expect([...(all?.MessageAttributes?.['blob']?.BinaryValue ?? [])]).toEqual([0, 1, 254, 255]);
    const [prefixed] = await receive(queueUrl, { VisibilityTimeout: 0, MessageAttributeNames: ['order.*'] });
    expect(Object.keys(prefixed?.MessageAttributes ?? {}).sort()).toEqual(['order.id', 'order.total']);
    expect(prefixed?.MD5OfMessageAttributes).not.toBe(all?.MD5OfMessageAttributes);
    const [none] = await receive(queueUrl, { MessageAttributeNames: [] });
    expect(none?.MessageAttributes).toBeUndefined();
    expect(none?.MD5OfMessageAttributes).toBeUndefined();
  });

  it('returns at most MaxNumberOfMessages, and refuses 0 or 11', async () => {
    const queueUrl = await newQueue('max-number');
    for (let i = 0; i < 5; i += 1) await send(queueUrl, `m${i}`);
    expect(await receive(queueUrl, { MaxNumberOfMessages: 3 })).toHaveLength(3);
    await expect(receive(queueUrl, { MaxNumberOfMessages: 0 })).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    await expect(receive(queueUrl, { MaxNumberOfMessages: 11 })).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    await expect(receive(queueUrl, { WaitTimeSeconds: 21 })).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    await expect(receive(queueUrl, { VisibilityTimeout: 43_201 })).rejects.toMatchObject({ name: 'InvalidParameterValue' });
  });

  it('long-polls: a waiting receive answers with a message sent while it waits', async () => {
    const queueUrl = await newQueue('long-poll');
    const waiting = receive(queueUrl, { WaitTimeSeconds: 10 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await send(queueUrl, 'arrived');
    expect(bodies(await waiting)).toEqual(['arrived']);
  });

  it('long-polls: an empty queue is answered empty only once the wait is over', async () => {
    const queueUrl = await newQueue('long-poll-empty', { ReceiveMessageWaitTimeSeconds: '1' });
    const started = performance.now();
    expect(await receive(queueUrl)).toEqual([]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
  });
});

describe('visibility timeout and receipt handles', () => {
  it('hides a received message for the visibility timeout, then delivers it again with a new handle and count 2', async () => {
    const queueUrl = await newQueue('visibility', { VisibilityTimeout: '1' });
    await send(queueUrl, 'again');
    const [first] = await receive(queueUrl);
    expect(await receive(queueUrl)).toEqual([]);
    local.clock.advance(1);
    const [second] = await receive(queueUrl);
    expect(second).toMatchObject({ MessageId: first?.MessageId, Attributes: expect.objectContaining({ ApproximateReceiveCount: '2' }) });
    expect(second?.ReceiptHandle).not.toBe(first?.ReceiptHandle);
    expect(second?.Attributes?.ApproximateFirstReceiveTimestamp).toBe(first?.Attributes?.ApproximateFirstReceiveTimestamp);
  });

  it('takes a VisibilityTimeout of the receive over the queue\'s', async () => {
    const queueUrl = await newQueue('visibility-override', { VisibilityTimeout: '1' });
    await send(queueUrl, 'longer');
    await receive(queueUrl, { VisibilityTimeout: 5 });
    local.clock.advance(4);
    expect(await receive(queueUrl)).toEqual([]);
    local.clock.advance(1);
    expect(bodies(await receive(queueUrl))).toEqual(['longer']);
  });

  it('delays a message by its DelaySeconds or the queue\'s', async () => {
    const queueUrl = await newQueue('delay', { DelaySeconds: '3' });
    await send(queueUrl, 'queue delay');
    await send(queueUrl, 'own delay', { DelaySeconds: 1 });
    expect(await receive(queueUrl)).toEqual([]);
    local.clock.advance(1);
    expect(bodies(await receive(queueUrl))).toEqual(['own delay']);
    local.clock.advance(2);
    expect(bodies(await receive(queueUrl))).toEqual(['queue delay']);
  });

  it('deletes with the latest handle, even after the visibility timeout on a standard queue', async () => {
    const queueUrl = await newQueue('delete', { VisibilityTimeout: '1' });
    await send(queueUrl, 'gone');
    const [message] = await receive(queueUrl);
    local.clock.advance(2);
    await local.client.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message!.ReceiptHandle! }));
    local.clock.advance(2);
    expect(await receive(queueUrl)).toEqual([]);
  });

  it('succeeds without deleting for the handle of an earlier receive, as SQS documents', async () => {
    const queueUrl = await newQueue('stale-handle', { VisibilityTimeout: '1' });
    await send(queueUrl, 'kept');
    const [first] = await receive(queueUrl);
    local.clock.advance(1);
    await receive(queueUrl);
    await local.client.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: first!.ReceiptHandle! }));
    local.clock.advance(1);
    expect(bodies(await receive(queueUrl))).toEqual(['kept']);
  });

  it('succeeds for a message deleted already, and refuses a string that is no receipt handle', async () => {
    const queueUrl = await newQueue('handles');
    await send(queueUrl, 'once');
    const [message] = await receive(queueUrl);
    await local.client.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message!.ReceiptHandle! }));
    await expect(local.client.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message!.ReceiptHandle! }))).resolves.toMatchObject({ $metadata: { httpStatusCode: 200 } });
    await expect(local.client.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: 'garbage' }))).rejects.toBeInstanceOf(ReceiptHandleIsInvalid);
  });

  it('DeleteMessageBatch deletes the good entries and lists the bad ones in Failed', async () => {
    const queueUrl = await newQueue('delete-batch', { VisibilityTimeout: '1' });
    await send(queueUrl, 'a');
    await send(queueUrl, 'b');
    const messages = await receive(queueUrl);
    const result = await local.client.send(new DeleteMessageBatchCommand({
      QueueUrl: queueUrl,
      Entries: [...messages.map((message, i) => ({ Id: `m${i}`, ReceiptHandle: message.ReceiptHandle! })), { Id: 'bad', ReceiptHandle: 'garbage' }],
    }));
    expect(result.Successful?.map((entry) => entry.Id)).toEqual(['m0', 'm1']);
    expect(result.Failed).toEqual([expect.objectContaining({ Id: 'bad', Code: 'ReceiptHandleIsInvalid', SenderFault: true })]);
    local.clock.advance(2);
    expect(await receive(queueUrl)).toEqual([]);
  });

  it('ChangeMessageVisibility extends the timeout, and 0 makes the message visible at once', async () => {
    const queueUrl = await newQueue('change-visibility', { VisibilityTimeout: '1' });
    await send(queueUrl, 'a');
    const [message] = await receive(queueUrl);
    await local.client.send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: message!.ReceiptHandle!, VisibilityTimeout: 10 }));
    local.clock.advance(5);
    expect(await receive(queueUrl)).toEqual([]);
    await local.client.send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: message!.ReceiptHandle!, VisibilityTimeout: 0 }));
    const [again] = await receive(queueUrl);
    expect(again?.MessageId).toBe(message?.MessageId);
  });

  it('ChangeMessageVisibility refuses a message not in flight and the handle of an earlier receive', async () => {
    const queueUrl = await newQueue('change-refused', { VisibilityTimeout: '1' });
    await send(queueUrl, 'a');
    const [first] = await receive(queueUrl);
    local.clock.advance(1);
    await expect(local.client.send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: first!.ReceiptHandle!, VisibilityTimeout: 5 })))
      .rejects.toBeInstanceOf(MessageNotInflight);
    await receive(queueUrl);
    await expect(local.client.send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: first!.ReceiptHandle!, VisibilityTimeout: 5 })))
      .rejects.toMatchObject({ name: 'InvalidParameterValue' });
  });

  it('ChangeMessageVisibilityBatch changes the good entries and lists the bad ones in Failed', async () => {
    const queueUrl = await newQueue('change-batch', { VisibilityTimeout: '1' });
    await send(queueUrl, 'a');
    const [message] = await receive(queueUrl);
    const result = await local.client.send(new ChangeMessageVisibilityBatchCommand({
      QueueUrl: queueUrl,
      Entries: [{ Id: 'ok', ReceiptHandle: message!.ReceiptHandle!, VisibilityTimeout: 0 }, { Id: 'bad', ReceiptHandle: 'garbage', VisibilityTimeout: 0 }],
    }));
    expect(result.Successful?.map((entry) => entry.Id)).toEqual(['ok']);
    expect(result.Failed?.map((entry) => entry.Id)).toEqual(['bad']);
    expect(bodies(await receive(queueUrl))).toEqual(['a']);
  });
});

describe('PurgeQueue and retention', () => {
  it('purges every message, in flight or not, once a minute', async () => {
    const queueUrl = await newQueue('purge', { VisibilityTimeout: '1' });
    await send(queueUrl, 'in flight');
    await receive(queueUrl);
    await send(queueUrl, 'waiting');
    await local.client.send(new PurgeQueueCommand({ QueueUrl: queueUrl }));
    local.clock.advance(2);
    expect(await receive(queueUrl)).toEqual([]);
    await expect(local.client.send(new PurgeQueueCommand({ QueueUrl: queueUrl }))).rejects.toBeInstanceOf(PurgeQueueInProgress);
    local.clock.advance(60);
    await expect(local.client.send(new PurgeQueueCommand({ QueueUrl: queueUrl }))).resolves.toMatchObject({ $metadata: { httpStatusCode: 200 } });
  });

  it('drops a message once it is older than MessageRetentionPeriod, in flight or not', async () => {
    const queueUrl = await newQueue('retention', { MessageRetentionPeriod: '60', VisibilityTimeout: '1' });
    await send(queueUrl, 'old');
    await receive(queueUrl);
    local.clock.advance(30);
    await send(queueUrl, 'young');
    local.clock.advance(30);
    expect(bodies(await receive(queueUrl))).toEqual(['young']);
    expect((await queueAttributes(queueUrl))['ApproximateNumberOfMessagesNotVisible']).toBe('1');
  });
});

describe('FIFO queues', () => {
  it('needs a MessageGroupId, and a MessageDeduplicationId unless ContentBasedDeduplication is on', async () => {
    const queueUrl = await newFifoQueue('fifo-rules');
    await expect(send(queueUrl, 'x', { MessageDeduplicationId: 'd' })).rejects.toMatchObject({ name: 'MissingParameter' });
    await expect(send(queueUrl, 'x', { MessageGroupId: 'g' })).rejects.toMatchObject({ name: 'InvalidParameterValue', message: expect.stringContaining('ContentBasedDeduplication') });
    await expect(send(queueUrl, 'x', { MessageGroupId: 'g', MessageDeduplicationId: 'd', DelaySeconds: 1 })).rejects.toMatchObject({ name: 'InvalidParameterValue' });
  });

  it('drops a send with a MessageDeduplicationId seen in the last 5 minutes, answering the first message', async () => {
    const queueUrl = await newFifoQueue('dedup');
    const first = await send(queueUrl, 'one', { MessageGroupId: 'g', MessageDeduplicationId: 'order-1' });
    local.clock.advance(299);
    const retry = await send(queueUrl, 'one', { MessageGroupId: 'g', MessageDeduplicationId: 'order-1' });
    expect(retry.MessageId).toBe(first.MessageId);
    expect(retry.SequenceNumber).toBe(first.SequenceNumber);
    expect((await queueAttributes(queueUrl))['ApproximateNumberOfMessages']).toBe('1');
    local.clock.advance(1);
    const later = await send(queueUrl, 'one', { MessageGroupId: 'g', MessageDeduplicationId: 'order-1' });
    expect(later.MessageId).not.toBe(first.MessageId);
  });

  it('keeps the window after the first message is deleted', async () => {
    const queueUrl = await newFifoQueue('dedup-deleted');
    await send(queueUrl, 'one', { MessageGroupId: 'g', MessageDeduplicationId: 'k' });
    const [message] = await receive(queueUrl);
    await local.client.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message!.ReceiptHandle! }));
    await send(queueUrl, 'one', { MessageGroupId: 'g', MessageDeduplicationId: 'k' });
    expect(await receive(queueUrl)).toEqual([]);
  });

  it('remembers a deduplication id for deduplicationWindowMs when a run scales the window down', async () => {
    const scaled = await startTestSqs({ deduplicationWindowMs: 2000 }, frozenClock());
    try {
      const queueUrl = await scaled.createQueue(queueName('dedup-scaled', true));
      const sendTo = (id: string) => scaled.client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'one', MessageGroupId: 'g', MessageDeduplicationId: id }));
      const first = await sendTo('k');
      scaled.clock.advance(1.999);
      expect((await sendTo('k')).MessageId).toBe(first.MessageId);
      scaled.clock.advance(0.001);
      expect((await sendTo('k')).MessageId).not.toBe(first.MessageId);
      expect((await scaled.client.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }))).Attributes).toEqual({ ApproximateNumberOfMessages: '2' });
    } finally {
      await scaled.close();
    }
  });

  it('refuses a deduplicationWindowMs that is not a whole number of 1 or more, naming it', async () => {
    await expect(startSqs({ deduplicationWindowMs: 0 })).rejects.toThrow('deduplicationWindowMs must be a whole number');
    await expect(startSqs({ deduplicationWindowMs: 1.5 })).rejects.toThrow(LocalConfigError);
  });

  it('deduplicates by the sha-256 of the body with ContentBasedDeduplication', async () => {
    const queueUrl = await newFifoQueue('content-dedup', { ContentBasedDeduplication: 'true' });
    const first = await send(queueUrl, '{"order":1}', { MessageGroupId: 'g' });
    expect((await send(queueUrl, '{"order":1}', { MessageGroupId: 'g' })).MessageId).toBe(first.MessageId);
    const [message] = await receive(queueUrl);
    expect(message?.Attributes?.MessageDeduplicationId).toBe(createHash('sha256').update('{"order":1}').digest('hex'));
  });

  it('hands out a group in order with increasing SequenceNumber, MessageGroupId and MessageDeduplicationId', async () => {
    const queueUrl = await newFifoQueue('order');
    for (let i = 1; i <= 4; i += 1) await send(queueUrl, `m${i}`, { MessageGroupId: 'g', MessageDeduplicationId: `d${i}` });
    const messages = await receive(queueUrl);
    expect(bodies(messages)).toEqual(['m1', 'm2', 'm3', 'm4']);
    const sequence = messages.map((message) => BigInt(message.Attributes!.SequenceNumber!));
    expect(sequence).toEqual([...sequence].sort((a, b) => (a < b ? -1 : 1)));
    expect(new Set(sequence).size).toBe(4);
    expect(messages[0]?.Attributes).toMatchObject({ MessageGroupId: 'g', MessageDeduplicationId: 'd1' });
  });

  it('holds a group while one of its messages is in flight, and hands out other groups meanwhile', async () => {
    const queueUrl = await newFifoQueue('held', { VisibilityTimeout: '1' });
    await send(queueUrl, 'a1', { MessageGroupId: 'a', MessageDeduplicationId: 'a1' });
    await send(queueUrl, 'a2', { MessageGroupId: 'a', MessageDeduplicationId: 'a2' });
    await send(queueUrl, 'b1', { MessageGroupId: 'b', MessageDeduplicationId: 'b1' });
    const [a1] = await receive(queueUrl, { MaxNumberOfMessages: 1 });
    expect(a1?.Body).toBe('a1');
    expect(bodies(await receive(queueUrl))).toEqual(['b1']);
    await local.client.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: a1!.ReceiptHandle! }));
    expect(bodies(await receive(queueUrl))).toEqual(['a2']);
  });

  it('holds a group while any of its messages is in flight, even when its first one is visible again', async () => {
    const queueUrl = await newFifoQueue('held-any', { VisibilityTimeout: '1' });
    await send(queueUrl, 'a1', { MessageGroupId: 'a', MessageDeduplicationId: 'a1' });
    await send(queueUrl, 'a2', { MessageGroupId: 'a', MessageDeduplicationId: 'a2' });
    const [a1] = await receive(queueUrl);
    await local.client.send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: a1!.ReceiptHandle!, VisibilityTimeout: 0 }));
    expect(await receive(queueUrl)).toEqual([]);
    local.clock.advance(1);
    expect(bodies(await receive(queueUrl))).toEqual(['a1', 'a2']);
  });

  it('hands a failed head back first: the group waits for it, order kept', async () => {
    const queueUrl = await newFifoQueue('redelivered-head', { VisibilityTimeout: '1' });
    await send(queueUrl, 'a1', { MessageGroupId: 'a', MessageDeduplicationId: 'a1' });
    await send(queueUrl, 'a2', { MessageGroupId: 'a', MessageDeduplicationId: 'a2' });
    await receive(queueUrl, { MaxNumberOfMessages: 1 });
    local.clock.advance(1);
    expect(bodies(await receive(queueUrl))).toEqual(['a1', 'a2']);
  });

  it('answers one receive with several groups, each contiguous and in order, oldest group first', async () => {
    const queueUrl = await newFifoQueue('groups');
    for (const [group, i] of [['a', 1], ['b', 1], ['a', 2], ['b', 2], ['a', 3]] as const) {
      await send(queueUrl, `${group}${i}`, { MessageGroupId: group, MessageDeduplicationId: `${group}${i}` });
    }
    expect(bodies(await receive(queueUrl))).toEqual(['a1', 'a2', 'a3', 'b1', 'b2']);
  });

  it('refuses a delete with a handle whose visibility timeout ran out', async () => {
    const queueUrl = await newFifoQueue('fifo-expired-handle', { VisibilityTimeout: '1' });
    await send(queueUrl, 'a', { MessageGroupId: 'g', MessageDeduplicationId: 'a' });
    const [message] = await receive(queueUrl);
    local.clock.advance(1);
    await expect(local.client.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message!.ReceiptHandle! })))
      .rejects.toMatchObject({ name: 'InvalidParameterValue', message: expect.stringContaining('expired') });
  });
});

describe('redrive to a dead-letter queue', () => {
  async function queueArn(queueUrl: string): Promise<string> {
    return (await queueAttributes(queueUrl))['QueueArn']!;
  }

  it('moves a message whose next receive would exceed maxReceiveCount, keeping its id, body and attributes', async () => {
    const dlqUrl = await newQueue('dlq');
    const redrivePolicy = JSON.stringify({ deadLetterTargetArn: await queueArn(dlqUrl), maxReceiveCount: 2 });
    const queueUrl = await newQueue('source', { VisibilityTimeout: '1', RedrivePolicy: redrivePolicy });
    const sent = await send(queueUrl, 'poison', { MessageAttributes: { k: { DataType: 'String', StringValue: 'v' } } });
    expect(await receive(queueUrl)).toHaveLength(1);
    local.clock.advance(1);
    expect(await receive(queueUrl)).toHaveLength(1);
    local.clock.advance(1);
    expect(await receive(queueUrl)).toEqual([]);
    const [dead] = await receive(dlqUrl);
    expect(dead).toMatchObject({ MessageId: sent.MessageId, Body: 'poison', MessageAttributes: { k: { DataType: 'String', StringValue: 'v' } } });
    expect(dead?.Attributes?.DeadLetterQueueSourceArn).toBe(await queueArn(queueUrl));
    expect(await queueAttributes(queueUrl)).toMatchObject({ ApproximateNumberOfMessages: '0', ApproximateNumberOfMessagesNotVisible: '0' });
  });

  it('keeps the enqueue time on a standard dead-letter queue, and restarts it on a FIFO one', async () => {
    const dlqUrl = await newQueue('dlq-retention', { MessageRetentionPeriod: '60' });
    const queueUrl = await newQueue('source-retention', { VisibilityTimeout: '1', RedrivePolicy: JSON.stringify({ deadLetterTargetArn: await queueArn(dlqUrl), maxReceiveCount: 1 }) });
    const fifoDlqUrl = await newFifoQueue('dlq-retention', { MessageRetentionPeriod: '60' });
    const fifoUrl = await newFifoQueue('source-retention', { VisibilityTimeout: '1', RedrivePolicy: JSON.stringify({ deadLetterTargetArn: await queueArn(fifoDlqUrl), maxReceiveCount: 1 }) });
    await send(queueUrl, 'standard');
    await send(fifoUrl, 'fifo', { MessageGroupId: 'g', MessageDeduplicationId: 'f' });
    await receive(queueUrl);
    await receive(fifoUrl);
    local.clock.advance(50);
    await receive(queueUrl);
    await receive(fifoUrl);
    local.clock.advance(15);
    expect(await receive(dlqUrl)).toEqual([]);
    expect(bodies(await receive(fifoDlqUrl))).toEqual(['fifo']);
  });

  it('refuses a redrive target that does not exist, or a standard one for a FIFO queue', async () => {
    await expect(newQueue('no-target', { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: 'arn:aws:sqs:us-east-1:000000000000:nothing', maxReceiveCount: 3 }) }))
      .rejects.toMatchObject({ name: 'InvalidParameterValue', message: expect.stringContaining('does not exist') });
    const standardDlq = await queueArn(await newQueue('standard-dlq'));
    await expect(newFifoQueue('fifo-source', { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: standardDlq, maxReceiveCount: 3 }) }))
      .rejects.toMatchObject({ name: 'InvalidParameterValue' });
    await expect(newQueue('bad-count', { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: standardDlq, maxReceiveCount: 0 }) }))
      .rejects.toMatchObject({ name: 'InvalidParameterValue' });
  });
});

describe('fault hooks', () => {
  let faulty: TestSqs;
  let deliverTwice: (message: FaultMessage) => boolean = () => false;
  let failEntries = false;
  let failDeletes = false;
  let loseNext = 0;

  beforeAll(async () => {
    faulty = await startTestSqs({
      faults: {
        deliverTwice: (message) => deliverTwice(message),
        failSendEntry: (entry) => failEntries && entry.body.startsWith('fail'),
        failDeleteEntry: (entry) => failDeletes && entry.body.startsWith('keep'),
        loseResponse: ({ operation }) => {
          if (operation !== 'SendMessage' || loseNext === 0) return false;
          loseNext -= 1;
          return true;
        },
      },
    });
  });

  afterAll(async () => {
    await faulty.close();
  });

  it('deliverTwice hands one message to two receivers at once, and either handle deletes it', async () => {
    const queueUrl = await faulty.createQueue(queueName('twice'), { VisibilityTimeout: '1' });
    await faulty.client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'twice' }));
    deliverTwice = () => true;
    const first = await faulty.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl }));
    deliverTwice = () => false;
    const second = await faulty.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl }));
    expect(second.Messages?.[0]?.MessageId).toBe(first.Messages?.[0]?.MessageId);
    expect(second.Messages?.[0]?.ReceiptHandle).not.toBe(first.Messages?.[0]?.ReceiptHandle);
    await faulty.client.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: first.Messages![0]!.ReceiptHandle! }));
    faulty.clock.advance(2);
    expect((await faulty.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl }))).Messages).toBeUndefined();
    expect(faulty.sqs.stats().faults.deliveredTwice).toBe(1);
  });

  it('deliverTwice is asked again for each copy on a standard queue, so one message can reach three receivers at once', async () => {
    const queueUrl = await faulty.createQueue(queueName('thrice'), { VisibilityTimeout: '30' });
    await faulty.client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'thrice' }));
    const asked: number[] = [];
    deliverTwice = (message) => {
      asked.push(message.copies);
      return message.copies < 2;
    };
    const receives = [];
    for (let i = 0; i < 4; i += 1) receives.push(await faulty.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl })));
    deliverTwice = () => false;

    expect(receives.map((receive) => receive.Messages?.length ?? 0)).toEqual([1, 1, 1, 0]);
    expect(new Set(receives.slice(0, 3).map((receive) => receive.Messages![0]!.ReceiptHandle)).size).toBe(3);
    expect(asked).toEqual([0, 1, 2]);
  });

  it('deliverTwice on FIFO hands the next receiver the group from its head, in order, as when a visibility timeout runs out mid-batch', async () => {
    const queueUrl = await faulty.createQueue(queueName('twice', true), { VisibilityTimeout: '30' });
    for (const body of ['a', 'b', 'c']) {
      await faulty.client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body, MessageGroupId: 'g', MessageDeduplicationId: body }));
    }
    deliverTwice = (message) => message.body === 'b';
    const first = await faulty.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }));
    deliverTwice = () => false;
    const second = await faulty.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }));
    const third = await faulty.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }));

    expect(first.Messages?.map((message) => message.Body)).toEqual(['a', 'b', 'c']);
    expect(second.Messages?.map((message) => message.Body)).toEqual(['a', 'b']);
    expect(third.Messages).toBeUndefined();
  });

  it('deliverTwice on FIFO never hands out a later copy of a group while an earlier one is with another receiver', async () => {
    const queueUrl = await faulty.createQueue(queueName('twice-cut', true), { VisibilityTimeout: '30' });
    for (const body of ['a', 'b', 'c']) {
      await faulty.client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body, MessageGroupId: 'g', MessageDeduplicationId: body }));
    }
    deliverTwice = (message) => message.body === 'c';
    await faulty.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }));
    deliverTwice = () => false;
    const second = await faulty.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 2 }));
    const third = await faulty.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }));

    expect(second.Messages?.map((message) => message.Body)).toEqual(['a', 'b']);
    expect(third.Messages).toBeUndefined();
  });

  it('failSendEntry answers chosen entries in Failed as a server fault and stores nothing for them', async () => {
    const queueUrl = await faulty.createQueue(queueName('fail-entry'));
    failEntries = true;
    const result = await faulty.client.send(new SendMessageBatchCommand({
      QueueUrl: queueUrl, Entries: [{ Id: 'a', MessageBody: 'fail me' }, { Id: 'b', MessageBody: 'keep me' }],
    }));
    failEntries = false;
    expect(result.Failed).toEqual([expect.objectContaining({ Id: 'a', Code: 'InternalError', SenderFault: false })]);
    const { Messages } = await faulty.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }));
    expect(Messages?.map((message) => message.Body)).toEqual(['keep me']);
  });

  it('failDeleteEntry answers chosen deletes in Failed as a server fault and the message comes back after its visibility timeout', async () => {
    const queueUrl = await faulty.createQueue(queueName('fail-delete'), { VisibilityTimeout: '1' });
    await faulty.client.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: [{ Id: 'a', MessageBody: 'keep me' }, { Id: 'b', MessageBody: 'delete me' }] }));
    const { Messages = [] } = await faulty.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }));
    failDeletes = true;
    const result = await faulty.client.send(new DeleteMessageBatchCommand({
      QueueUrl: queueUrl, Entries: Messages.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle! })),
    }));
    failDeletes = false;
    const kept = Messages.findIndex((message) => message.Body === 'keep me');
    expect(result.Failed).toEqual([expect.objectContaining({ Id: String(kept), Code: 'InternalError', SenderFault: false })]);
    expect(result.Successful?.map((entry) => entry.Id)).toEqual([String(1 - kept)]);
    faulty.clock.advance(2);
    const { Messages: again } = await faulty.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, MessageSystemAttributeNames: ['ApproximateReceiveCount'] }));
    expect(again?.map((message) => [message.Body, message.Attributes?.ApproximateReceiveCount])).toEqual([['keep me', '2']]);
  });

  it('loseResponse applies a send and answers 500: the SDK retry stores a second copy on a standard queue, not on FIFO', async () => {
    const queueUrl = await faulty.createQueue(queueName('lost'));
    const fifoUrl = await faulty.createQueue(queueName('lost', true));
    loseNext = 1;
    await faulty.client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'sent twice' }));
    loseNext = 1;
    await faulty.client.send(new SendMessageCommand({ QueueUrl: fifoUrl, MessageBody: 'sent once', MessageGroupId: 'g', MessageDeduplicationId: 'k' }));
    const standard = await faulty.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }));
    const fifo = await faulty.client.send(new ReceiveMessageCommand({ QueueUrl: fifoUrl, MaxNumberOfMessages: 10 }));
    expect(standard.Messages?.map((message) => message.Body)).toEqual(['sent twice', 'sent twice']);
    expect(fifo.Messages?.map((message) => message.Body)).toEqual(['sent once']);
    expect(faulty.sqs.stats().faults.lostResponses).toBe(2);
  });
});
