import { createHash } from 'node:crypto';
import { GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageBatchCommand, SendMessageCommand, type SendMessageCommandInput } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { LocalConfigError } from '../../local/errors.js';
import { startEventSource, type EventSourceHandler, type RunningEventSource, type StartEventSourceOptions } from '../../local/event-source/index.js';
import { queueName, startTestSqs, type TestSqs } from '../support/sqs.js';

let local: TestSqs;
const running: RunningEventSource[] = [];

beforeAll(async () => {
  local = await startTestSqs();
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((source) => source.stop()));
});

afterAll(async () => {
  await local.close();
});

/** An event source on the emulator with short waits, stopped after each test. */
async function poll(queueUrl: string, handler: EventSourceHandler, options: Partial<StartEventSourceOptions> = {}): Promise<RunningEventSource> {
  const source = await startEventSource({ client: local.client, queueUrl, handler, waitTimeSeconds: 1, pollers: 1, ...options });
  running.push(source);
  return source;
}

async function sendAll(queueUrl: string, bodies: string[], extra: (body: string) => Partial<SendMessageCommandInput> = () => ({})): Promise<void> {
  for (let start = 0; start < bodies.length; start += 10) {
    await local.client.send(new SendMessageBatchCommand({
      QueueUrl: queueUrl,
      Entries: bodies.slice(start, start + 10).map((body, index) => ({ Id: `e${index}`, MessageBody: body, ...extra(body) })),
    }));
  }
}

async function counts(queueUrl: string): Promise<{ visible: number; inFlight: number }> {
  const { Attributes } = await local.client.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['All'] }));
  return { visible: Number(Attributes?.ApproximateNumberOfMessages), inFlight: Number(Attributes?.ApproximateNumberOfMessagesNotVisible) };
}

/** A handler that records every record it is given and answers what `respond` says. */
function recording(respond: (event: SQSEvent, call: number) => Promise<SQSBatchResponse | void> | SQSBatchResponse | void = () => undefined) {
  const calls: SQSRecord[][] = [];
  const handler: EventSourceHandler = async (event) => {
    calls.push(event.Records);
    return respond(event, calls.length);
  };
  const seen = () => calls.flat().map((record) => record.body);
  return { handler, calls, seen };
}

// The pollers run in real time: wait for what they do, generously, since the whole suite shares two cores.
const eventually = (assertion: () => unknown) => vi.waitFor(assertion, { timeout: 10_000, interval: 10 });

const failuresOf = (records: SQSRecord[]): SQSBatchResponse => ({ batchItemFailures: records.map((record) => ({ itemIdentifier: record.messageId })) });

describe('the event and the context are what Lambda hands a function', () => {
  it('builds a well-formed SQSEvent record', async () => {
    const queueUrl = await local.createQueue(queueName('event-shape'));
    await local.client.send(new SendMessageCommand({
      QueueUrl: queueUrl,
      MessageBody: '{"orderId":"o-1"}',
      MessageAttributes: {
        'idempotency-key': { DataType: 'String', StringValue: 'k-1' },
        raw: { DataType: 'Binary', BinaryValue: new Uint8Array([1, 2, 3]) },
      },
    }));
    const { handler, calls } = recording();
    const source = await poll(queueUrl, handler);
    await eventually(() => expect(calls).toHaveLength(1));
    const record = calls[0]![0]!;
    expect(record).toMatchObject({
      body: '{"orderId":"o-1"}',
      md5OfBody: createHash('md5').update('{"orderId":"o-1"}').digest('hex'),
      eventSource: 'aws:sqs',
      eventSourceARN: source.queue.arn,
      awsRegion: 'us-east-1',
      messageAttributes: {
        'idempotency-key': { stringValue: 'k-1', stringListValues: [], binaryListValues: [], dataType: 'String' },
        raw: { binaryValue: Buffer.from([1, 2, 3]).toString('base64'), stringListValues: [], binaryListValues: [], dataType: 'Binary' },
      },
    });
    expect(source.queue.arn).toMatch(/^arn:aws:sqs:us-east-1:000000000000:event-shape-/);
    expect(record.md5OfMessageAttributes).toMatch(/^[0-9a-f]{32}$/);
    expect(record.receiptHandle).not.toBe('');
    expect(record.attributes).toMatchObject({ ApproximateReceiveCount: '1', SenderId: '000000000000' });
    expect(record.attributes.SentTimestamp).toMatch(/^\d{13}$/);
    expect(record.attributes.ApproximateFirstReceiveTimestamp).toMatch(/^\d{13}$/);
  });

  it('hands a Lambda-like context whose remaining time counts down from the function timeout', async () => {
    const queueUrl = await local.createQueue(queueName('context'));
    await sendAll(queueUrl, ['a']);
    const seen: { context: Context; remaining: [number, number] }[] = [];
    await poll(queueUrl, async (_event, context) => {
      const first = context.getRemainingTimeInMillis();
      await new Promise((resolve) => setTimeout(resolve, 30));
      seen.push({ context, remaining: [first, context.getRemainingTimeInMillis()] });
    }, { functionTimeoutMs: 5_000, functionName: 'order-worker' });
    await eventually(() => expect(seen).toHaveLength(1));
    const [{ context, remaining: [first, later] }] = seen as [(typeof seen)[0]];
    expect(context).toMatchObject({
      functionName: 'order-worker',
      functionVersion: '$LATEST',
      invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:order-worker',
      logGroupName: '/aws/lambda/order-worker',
    });
    expect(context.awsRequestId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(first).toBeLessThanOrEqual(5_000);
    expect(first).toBeGreaterThan(4_000);
    expect(later).toBeLessThanOrEqual(first - 25);
  });
});

describe('acknowledged records are deleted, failed ones reappear after the visibility timeout', () => {
  it('deletes every record of a batch the handler completed', async () => {
    const queueUrl = await local.createQueue(queueName('acknowledged'), { VisibilityTimeout: '1' });
    await sendAll(queueUrl, ['a', 'b', 'c']);
    const { handler, seen } = recording();
    const source = await poll(queueUrl, handler);
    await eventually(() => expect(source.stats.deleted).toBe(3));
    local.clock.advance(2);
    expect(await counts(queueUrl)).toEqual({ visible: 0, inFlight: 0 });
    expect(seen()).toEqual(['a', 'b', 'c']);
  });

  it('leaves the reported batchItemFailures in the queue, and they come back after the visibility timeout', async () => {
    const queueUrl = await local.createQueue(queueName('partial'), { VisibilityTimeout: '1' });
    await sendAll(queueUrl, ['a', 'b', 'c']);
    const { handler, calls } = recording((event, call) => (call === 1 ? failuresOf(event.Records.filter((record) => record.body === 'b')) : undefined));
    const source = await poll(queueUrl, handler);
    await eventually(() => expect(source.stats.deleted).toBe(2));
    expect(await counts(queueUrl)).toEqual({ visible: 0, inFlight: 1 });
    local.clock.advance(1);
    await eventually(() => expect(calls).toHaveLength(2));
    expect(calls[1]!.map((record) => [record.body, record.attributes.ApproximateReceiveCount])).toEqual([['b', '2']]);
    await eventually(() => expect(source.stats.deleted).toBe(3));
    expect(source.stats).toMatchObject({ partialBatches: 1, failedRecords: 1 });
  });

  it('ignores batchItemFailures without reportBatchItemFailures, as the event source mapping does', async () => {
    const queueUrl = await local.createQueue(queueName('no-report'), { VisibilityTimeout: '1' });
    await sendAll(queueUrl, ['a', 'b']);
    const source = await poll(queueUrl, async (event) => failuresOf(event.Records), { reportBatchItemFailures: false });
    await eventually(() => expect(source.stats.deleted).toBe(2));
  });
});

describe('a thrown error, a timeout or an invalid response fails the whole batch', () => {
  async function wholeBatchFails(first: EventSourceHandler, options: Partial<StartEventSourceOptions> = {}) {
    const queueUrl = await local.createQueue(queueName('whole-batch'), { VisibilityTimeout: '1' });
    await sendAll(queueUrl, ['a', 'b', 'c']);
    const calls: string[][] = [];
    const source = await poll(queueUrl, async (event, context) => {
      calls.push(event.Records.map((record) => record.body));
      return calls.length === 1 ? first(event, context) : undefined;
    }, options);
    await eventually(() => expect(source.stats.failedRecords).toBe(3));
    expect(await counts(queueUrl)).toEqual({ visible: 0, inFlight: 3 });
    local.clock.advance(1);
    await eventually(() => expect(source.stats.deleted).toBe(3));
    expect(calls).toEqual([['a', 'b', 'c'], ['a', 'b', 'c']]);
    return source.stats;
  }

  it('fails the batch when the handler throws', async () => {
    const stats = await wholeBatchFails(async () => {
      throw new Error('database down');
    });
    expect(stats.errors).toBe(1);
  });

  it('fails the batch when the handler runs past the function timeout', async () => {
    const stats = await wholeBatchFails(() => new Promise((resolve) => setTimeout(resolve, 300)), { functionTimeoutMs: 50 });
    expect(stats.timeouts).toBe(1);
  });

  it.each([
    ['an empty itemIdentifier', { batchItemFailures: [{ itemIdentifier: '' }] }],
    ['an itemIdentifier not in the batch', { batchItemFailures: [{ itemIdentifier: 'not-a-message-id' }] }],
    ['an entry without itemIdentifier', { batchItemFailures: [{ itemIdentifer: 'misspelt' }] }],
    ['batchItemFailures that is not a list', { batchItemFailures: 'all of them' }],
    ['a response that is not an object', 'done'],
  ])('fails the batch for %s', async (_case, response) => {
    const stats = await wholeBatchFails(async () => response as unknown as SQSBatchResponse);
    expect(stats.invalidResponses).toBe(1);
  });
});

describe('polling as Lambda polls', () => {
  it('hands every message of a standard queue to exactly one invocation with several pollers', async () => {
    const queueUrl = await local.createQueue(queueName('pollers'));
    const bodies = Array.from({ length: 60 }, (_, i) => `m${i}`);
    await sendAll(queueUrl, bodies);
    const { handler, calls, seen } = recording();
    const source = await poll(queueUrl, handler, { pollers: 3, batchSize: 5 });
    await eventually(() => expect(source.stats.deleted).toBe(60));
    expect(seen().sort()).toEqual([...bodies].sort());
    expect(Math.max(...calls.map((records) => records.length))).toBeLessThanOrEqual(5);
  });

  it('gathers a batch over 10 within the batching window', async () => {
    const queueUrl = await local.createQueue(queueName('window'));
    await sendAll(queueUrl, Array.from({ length: 25 }, (_, i) => `m${i}`));
    const { handler, calls } = recording();
    await poll(queueUrl, handler, { batchSize: 25, maxBatchingWindowMs: 500 });
    await eventually(() => expect(calls.flat()).toHaveLength(25));
    expect(calls.map((records) => records.length)).toEqual([25]);
  });

  it('on FIFO, never has a group in two invocations at once, and hands each group in order', async () => {
    const queueUrl = await local.createQueue(queueName('fifo-pollers', true));
    const groups = ['g1', 'g2', 'g3', 'g4'];
    const bodies = groups.flatMap((group) => Array.from({ length: 6 }, (_, i) => `${group}:${i}`));
    await sendAll(queueUrl, bodies, (body) => ({ MessageGroupId: body.split(':')[0], MessageDeduplicationId: body.replace(':', '-') }));
    const active = new Set<string>();
    const overlaps: string[] = [];
    const order = new Map<string, number[]>();
    const source = await poll(queueUrl, async (event) => {
      const batchGroups = [...new Set(event.Records.map((record) => record.attributes.MessageGroupId!))];
      for (const group of batchGroups) {
        if (active.has(group)) overlaps.push(group);
        active.add(group);
      }
      for (const record of event.Records) {
        const [group, index] = record.body.split(':') as [string, string];
        order.set(group, [...(order.get(group) ?? []), Number(index)]);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
      for (const group of batchGroups) active.delete(group);
    }, { pollers: 3, batchSize: 4 });
    await eventually(() => expect(source.stats.deleted).toBe(bodies.length));
    expect(overlaps).toEqual([]);
    for (const group of groups) expect(order.get(group)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('a poison message is redriven to the DLQ after maxReceiveCount failed deliveries', async () => {
    const dlqUrl = await local.createQueue(queueName('poison-dlq'));
    const { Attributes } = await local.client.send(new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }));
    const queueUrl = await local.createQueue(queueName('poison'), {
      VisibilityTimeout: '1', RedrivePolicy: JSON.stringify({ deadLetterTargetArn: Attributes!.QueueArn, maxReceiveCount: 2 }),
    });
    await sendAll(queueUrl, ['fine', 'poison']);
    const { handler, seen } = recording((event) => failuresOf(event.Records.filter((record) => record.body === 'poison')));
    const source = await poll(queueUrl, handler);
    await eventually(() => expect(source.stats.failedRecords).toBe(1));
    local.clock.advance(1);
    await eventually(() => expect(source.stats.failedRecords).toBe(2));
    local.clock.advance(1);
    await eventually(async () => expect(await counts(dlqUrl)).toEqual({ visible: 1, inFlight: 0 }));
    expect(await counts(queueUrl)).toEqual({ visible: 0, inFlight: 0 });
    expect(seen().filter((body) => body === 'poison')).toHaveLength(2);
    const { Messages } = await local.client.send(new ReceiveMessageCommand({ QueueUrl: dlqUrl }));
    expect(Messages?.[0]?.Body).toBe('poison');
  });

  it('stop() waits for the running invocation and its delete', async () => {
    const queueUrl = await local.createQueue(queueName('stop'), { VisibilityTimeout: '1' });
    await sendAll(queueUrl, ['slow']);
    let started = false;
    const source = await poll(queueUrl, async () => {
      started = true;
      await new Promise((resolve) => setTimeout(resolve, 100));
    });
    await eventually(() => expect(started).toBe(true));
    await source.stop();
    expect(source.stats.deleted).toBe(1);
    local.clock.advance(2);
    expect(await counts(queueUrl)).toEqual({ visible: 0, inFlight: 0 });
  });
});

describe('options Lambda would refuse are refused', () => {
  it.each([
    ['a FIFO batch over 10', true, { batchSize: 11 }],
    ['a batch over 10 without a batching window', false, { batchSize: 20 }],
    ['a batching window on FIFO', true, { maxBatchingWindowMs: 100 }],
    ['no poller', false, { pollers: 0 }],
    ['a wait over 20 seconds', false, { waitTimeSeconds: 21 }],
  ])('refuses %s', async (_case, fifo, options) => {
    const queueUrl = await local.createQueue(queueName('refused', fifo));
    await expect(poll(queueUrl, async () => undefined, options)).rejects.toBeInstanceOf(LocalConfigError);
  });
});
