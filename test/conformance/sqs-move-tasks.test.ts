import { setTimeout as sleep } from 'node:timers/promises';
import {
  CancelMessageMoveTaskCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ListMessageMoveTasksCommand,
  ReceiveMessageCommand,
  ResourceNotFoundException,
  SendMessageCommand,
  StartMessageMoveTaskCommand,
  type Message,
  type ReceiveMessageCommandInput,
  type SendMessageCommandInput,
  type StartMessageMoveTaskCommandInput,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deadLetterAll, deadLetterPair, queueArn, startFrozenTestSqs, waitForTask } from '../support/dead-letters.js';
import { queueName, type TestSqs } from '../support/sqs.js';

let local: TestSqs;

beforeAll(async () => {
  local = await startFrozenTestSqs();
});

afterAll(async () => {
  await local.close();
});

function send(QueueUrl: string, MessageBody: string, extra: Partial<SendMessageCommandInput> = {}) {
  return local.client.send(new SendMessageCommand({ QueueUrl, MessageBody, ...extra }));
}

async function receive(QueueUrl: string, extra: Partial<ReceiveMessageCommandInput> = {}): Promise<Message[]> {
  const { Messages } = await local.client.send(new ReceiveMessageCommand({
    QueueUrl, MaxNumberOfMessages: 10, MessageSystemAttributeNames: ['All'], MessageAttributeNames: ['All'], ...extra,
  }));
  return Messages ?? [];
}

async function visibleCount(QueueUrl: string): Promise<number> {
  const { Attributes } = await local.client.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }));
  return Number(Attributes!.ApproximateNumberOfMessages);
}

function start(input: StartMessageMoveTaskCommandInput) {
  return local.client.send(new StartMessageMoveTaskCommand(input));
}

function cancel(TaskHandle: string) {
  return local.client.send(new CancelMessageMoveTaskCommand({ TaskHandle }));
}

const bodies = (messages: Message[]) => messages.map((message) => message.Body);
const decodeHandle = (handle: string) => JSON.parse(Buffer.from(handle, 'base64').toString('utf8')) as unknown;
const taskHandleOf = (taskId: string, sourceArn: string) => Buffer.from(JSON.stringify({ taskId, sourceArn })).toString('base64');
const isDone = (task: { Status?: string }) => task.Status !== 'RUNNING' && task.Status !== 'CANCELLING';

describe('StartMessageMoveTask without a destination: each dead letter back to the queue it came from', () => {
  it('answers a handle of base64 JSON { taskId, sourceArn } and reports the task COMPLETED with its counts', async () => {
    const pair = await deadLetterPair(local, 'back');
    await send(pair.queueUrl, 'one');
    await send(pair.queueUrl, 'two');
    await deadLetterAll(local, pair.queueUrl);
    const startedAt = local.clock.now();
    const { TaskHandle } = await start({ SourceArn: pair.dlqArn });
    expect(decodeHandle(TaskHandle!)).toEqual({ taskId: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/), sourceArn: pair.dlqArn });
    const task = await waitForTask(local, pair.dlqArn, isDone);
    expect(task).toEqual({
      Status: 'COMPLETED',
      SourceArn: pair.dlqArn,
      ApproximateNumberOfMessagesMoved: 2,
      ApproximateNumberOfMessagesToMove: 2,
      StartedTimestamp: startedAt,
    });
    expect(await visibleCount(pair.dlqUrl)).toBe(0);
  });

  it('makes each a new message: a new id, receive count and first receive reset, no DeadLetterQueueSourceArn, body and attributes kept', async () => {
    const pair = await deadLetterPair(local, 'new-message');
    const attributes = { 'idempotency-key': { DataType: 'String', StringValue: 'order-7' } };
    const sent = await send(pair.queueUrl, 'poison', { MessageAttributes: attributes });
    await deadLetterAll(local, pair.queueUrl);
    const [dead] = await receive(pair.dlqUrl, { VisibilityTimeout: 0 });
    expect(dead).toMatchObject({ MessageId: sent.MessageId, Attributes: { ApproximateReceiveCount: '2', DeadLetterQueueSourceArn: pair.queueArn } });
    local.clock.advance(5);
    const movedAt = local.clock.now();
    await start({ SourceArn: pair.dlqArn });
    await waitForTask(local, pair.dlqArn, isDone);
    local.clock.advance(3);
    const [redriven, ...rest] = await receive(pair.queueUrl);
    expect(rest).toEqual([]);
    expect(redriven!.MessageId).not.toBe(sent.MessageId);
    expect(redriven!.MessageId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(redriven!.ReceiptHandle).not.toBe(dead!.ReceiptHandle);
    expect(redriven).toMatchObject({ Body: 'poison', MessageAttributes: attributes });
    expect(redriven!.Attributes!.ApproximateReceiveCount).toBe('1');
    expect(redriven!.Attributes!.ApproximateFirstReceiveTimestamp).toBe(String(movedAt + 3_000));
    expect(redriven!.Attributes!.SentTimestamp).toBe(String(movedAt));
    expect(redriven!.Attributes!.DeadLetterQueueSourceArn).toBeUndefined();
    await local.client.send(new DeleteMessageCommand({ QueueUrl: pair.queueUrl, ReceiptHandle: redriven!.ReceiptHandle! }));
    local.clock.advance(1);
    expect(await receive(pair.queueUrl)).toEqual([]);
  });

  it('counts retention from the move, not from the first send', async () => {
    const pair = await deadLetterPair(local, 'retention', false, { MessageRetentionPeriod: '60' });
    await send(pair.queueUrl, 'old');
    await deadLetterAll(local, pair.queueUrl);
    local.clock.advance(40);
    await start({ SourceArn: pair.dlqArn });
    await waitForTask(local, pair.dlqArn, isDone);
    local.clock.advance(30);
    expect(bodies(await receive(pair.queueUrl, { VisibilityTimeout: 0 }))).toEqual(['old']);
    local.clock.advance(30);
    expect(await receive(pair.queueUrl)).toEqual([]);
  });

  it('sends the messages of a DLQ shared by two queues each back to its own queue', async () => {
    const dlqUrl = await local.createQueue(queueName('shared-dlq'));
    const dlqArn = await queueArn(local, dlqUrl);
    const redrivePolicy = JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 1 });
    const first = await local.createQueue(queueName('first'), { VisibilityTimeout: '1', RedrivePolicy: redrivePolicy });
    const second = await local.createQueue(queueName('second'), { VisibilityTimeout: '1', RedrivePolicy: redrivePolicy });
    await send(first, 'from first');
    await send(second, 'from second');
    await deadLetterAll(local, first);
    await deadLetterAll(local, second);
    await start({ SourceArn: dlqArn });
    expect(await waitForTask(local, dlqArn, isDone)).toMatchObject({ Status: 'COMPLETED', ApproximateNumberOfMessagesMoved: 2 });
    expect(bodies(await receive(first))).toEqual(['from first']);
    expect(bodies(await receive(second))).toEqual(['from second']);
  });

  it('fails with CouldNotDetermineMessageSource at a message sent to the DLQ directly, which stays there', async () => {
    const pair = await deadLetterPair(local, 'direct');
    await send(pair.queueUrl, 'dead-lettered');
    await deadLetterAll(local, pair.queueUrl);
    await send(pair.dlqUrl, 'sent directly');
    await start({ SourceArn: pair.dlqArn });
    expect(await waitForTask(local, pair.dlqArn, isDone)).toEqual({
      Status: 'FAILED',
      FailureReason: 'CouldNotDetermineMessageSource',
      SourceArn: pair.dlqArn,
      ApproximateNumberOfMessagesMoved: 1,
      ApproximateNumberOfMessagesToMove: 2,
      StartedTimestamp: expect.any(Number),
    });
    expect(bodies(await receive(pair.queueUrl))).toEqual(['dead-lettered']);
    expect(bodies(await receive(pair.dlqUrl))).toEqual(['sent directly']);
  });

  it('moves only the messages visible when it starts: one in flight in the DLQ stays', async () => {
    const pair = await deadLetterPair(local, 'in-flight');
    await send(pair.queueUrl, 'a');
    await send(pair.queueUrl, 'b');
    await deadLetterAll(local, pair.queueUrl);
    expect(bodies(await receive(pair.dlqUrl, { MaxNumberOfMessages: 1, VisibilityTimeout: 30 }))).toEqual(['a']);
    await start({ SourceArn: pair.dlqArn });
    expect(await waitForTask(local, pair.dlqArn, isDone)).toMatchObject({ Status: 'COMPLETED', ApproximateNumberOfMessagesMoved: 1, ApproximateNumberOfMessagesToMove: 1 });
    expect(bodies(await receive(pair.queueUrl))).toEqual(['b']);
    local.clock.advance(30);
    expect(bodies(await receive(pair.dlqUrl))).toEqual(['a']);
  });
});

describe('StartMessageMoveTask to an explicit destination', () => {
  it('moves to DestinationArn, not to the source queue, and lists DestinationArn and the rate given', async () => {
    const pair = await deadLetterPair(local, 'explicit');
    const destinationUrl = await local.createQueue(queueName('destination'));
    const destinationArn = await queueArn(local, destinationUrl);
    await send(pair.queueUrl, 'elsewhere');
    await deadLetterAll(local, pair.queueUrl);
    await start({ SourceArn: pair.dlqArn, DestinationArn: destinationArn, MaxNumberOfMessagesPerSecond: 100 });
    expect(await waitForTask(local, pair.dlqArn, isDone)).toEqual({
      Status: 'COMPLETED',
      SourceArn: pair.dlqArn,
      DestinationArn: destinationArn,
      MaxNumberOfMessagesPerSecond: 100,
      ApproximateNumberOfMessagesMoved: 1,
      ApproximateNumberOfMessagesToMove: 1,
      StartedTimestamp: expect.any(Number),
    });
    expect(bodies(await receive(destinationUrl))).toEqual(['elsewhere']);
    expect(await receive(pair.queueUrl)).toEqual([]);
  });
});

describe('MaxNumberOfMessagesPerSecond: that many messages in each second of the clock', () => {
  it('moves one message, then one more each second, RUNNING with its handle until the last', async () => {
    const pair = await deadLetterPair(local, 'rate');
    for (const body of ['m1', 'm2', 'm3']) await send(pair.queueUrl, body);
    await deadLetterAll(local, pair.queueUrl);
    const { TaskHandle } = await start({ SourceArn: pair.dlqArn, MaxNumberOfMessagesPerSecond: 1 });
    const running = await waitForTask(local, pair.dlqArn, (task) => task.ApproximateNumberOfMessagesMoved === 1);
    expect(running).toMatchObject({ Status: 'RUNNING', TaskHandle, ApproximateNumberOfMessagesToMove: 3, MaxNumberOfMessagesPerSecond: 1 });
    await sleep(100);
    expect(await waitForTask(local, pair.dlqArn, () => true)).toMatchObject({ Status: 'RUNNING', ApproximateNumberOfMessagesMoved: 1 });
    expect(await visibleCount(pair.dlqUrl)).toBe(2);
    local.clock.advance(1);
    await waitForTask(local, pair.dlqArn, (task) => task.ApproximateNumberOfMessagesMoved === 2);
    local.clock.advance(1);
    const done = await waitForTask(local, pair.dlqArn, isDone);
    expect(done).toMatchObject({ Status: 'COMPLETED', ApproximateNumberOfMessagesMoved: 3 });
    expect(done.TaskHandle).toBeUndefined();
    expect(bodies(await receive(pair.queueUrl))).toEqual(['m1', 'm2', 'm3']);
  });
});

describe('CancelMessageMoveTask', () => {
  it('stops a RUNNING task: the moved messages stay moved, the rest stay in the DLQ, and a new task may start', async () => {
    const pair = await deadLetterPair(local, 'cancel');
    for (const body of ['m1', 'm2', 'm3']) await send(pair.queueUrl, body);
    await deadLetterAll(local, pair.queueUrl);
    const { TaskHandle } = await start({ SourceArn: pair.dlqArn, MaxNumberOfMessagesPerSecond: 1 });
    await waitForTask(local, pair.dlqArn, (task) => task.ApproximateNumberOfMessagesMoved === 1);
    const cancelled = await cancel(TaskHandle!);
    expect(cancelled.ApproximateNumberOfMessagesMoved).toBe(1);
    expect(await waitForTask(local, pair.dlqArn, isDone)).toEqual({
      Status: 'CANCELLED',
      SourceArn: pair.dlqArn,
      MaxNumberOfMessagesPerSecond: 1,
      ApproximateNumberOfMessagesMoved: 1,
      ApproximateNumberOfMessagesToMove: 3,
      StartedTimestamp: expect.any(Number),
    });
    local.clock.advance(10);
    await sleep(100);
    expect(bodies(await receive(pair.queueUrl))).toEqual(['m1']);
    expect(await visibleCount(pair.dlqUrl)).toBe(2);
    await expect(cancel(TaskHandle!)).rejects.toMatchObject({ name: 'InvalidParameterValue', message: expect.stringContaining('RUNNING') });
    await start({ SourceArn: pair.dlqArn });
    expect(await waitForTask(local, pair.dlqArn, isDone)).toMatchObject({ Status: 'COMPLETED', ApproximateNumberOfMessagesMoved: 2 });
  });

  it('refuses a handle that is no handle, one of an unknown queue, and one of an unknown task', async () => {
    const pair = await deadLetterPair(local, 'cancel-refusals');
    await expect(cancel('foobared')).rejects.toMatchObject({ name: 'InvalidParameterValue', message: 'Value for parameter TaskHandle is invalid.', $metadata: { httpStatusCode: 400 } });
    const unknownQueue = cancel(taskHandleOf('10f57157-fc38-4da9-a113-4de7e12d05dd', 'arn:aws:sqs:us-east-1:000000000000:no-such-queue'));
    await expect(unknownQueue).rejects.toBeInstanceOf(ResourceNotFoundException);
    await expect(unknownQueue).rejects.toMatchObject({ message: "The resource that you specified for the SourceArn parameter doesn't exist.", $metadata: { httpStatusCode: 404 } });
    await expect(cancel(taskHandleOf('10f57157-fc38-4da9-a113-4de7e12d05aa', pair.dlqArn)))
      .rejects.toMatchObject({ name: 'ResourceNotFoundException', message: 'Task does not exist.' });
  });
});

describe('ListMessageMoveTasks', () => {
  it('answers the most recent task by default and up to MaxResults (at most 10), newest first', async () => {
    const pair = await deadLetterPair(local, 'list');
    await send(pair.queueUrl, 'x');
    await deadLetterAll(local, pair.queueUrl);
    await start({ SourceArn: pair.dlqArn });
    await waitForTask(local, pair.dlqArn, isDone);
    await start({ SourceArn: pair.dlqArn });
    await waitForTask(local, pair.dlqArn, (task) => isDone(task) && task.ApproximateNumberOfMessagesToMove === 0);
    const newest = await local.client.send(new ListMessageMoveTasksCommand({ SourceArn: pair.dlqArn }));
    expect(newest.Results?.map((task) => task.ApproximateNumberOfMessagesToMove)).toEqual([0]);
    const all = await local.client.send(new ListMessageMoveTasksCommand({ SourceArn: pair.dlqArn, MaxResults: 10 }));
    expect(all.Results?.map((task) => task.ApproximateNumberOfMessagesMoved)).toEqual([0, 1]);
    await expect(local.client.send(new ListMessageMoveTasksCommand({ SourceArn: pair.dlqArn, MaxResults: 11 }))).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    await expect(local.client.send(new ListMessageMoveTasksCommand({ SourceArn: pair.dlqArn, MaxResults: 0 }))).rejects.toMatchObject({ name: 'InvalidParameterValue' });
  });

  it('answers no tasks for a queue without any, and ResourceNotFoundException for an unknown queue', async () => {
    const pair = await deadLetterPair(local, 'list-empty');
    expect((await local.client.send(new ListMessageMoveTasksCommand({ SourceArn: pair.queueArn }))).Results).toEqual([]);
    await expect(local.client.send(new ListMessageMoveTasksCommand({ SourceArn: 'arn:aws:sqs:us-east-1:000000000000:no-such-queue' })))
      .rejects.toBeInstanceOf(ResourceNotFoundException);
  });
});

describe('StartMessageMoveTask refusals', () => {
  it('refuses an unknown source, a source that is no DLQ, and an unknown destination, with the service\'s words', async () => {
    const pair = await deadLetterPair(local, 'refusals');
    const unknownSource = start({ SourceArn: 'arn:aws:sqs:us-east-1:000000000000:no-such-queue' });
    await expect(unknownSource).rejects.toBeInstanceOf(ResourceNotFoundException);
    await expect(unknownSource).rejects.toMatchObject({ message: "The resource that you specified for the SourceArn parameter doesn't exist.", $metadata: { httpStatusCode: 404 } });
    await expect(start({ SourceArn: pair.queueArn })).rejects.toMatchObject({ name: 'InvalidParameterValue', message: 'Source queue must be configured as a Dead Letter Queue.', $metadata: { httpStatusCode: 400 } });
    await expect(start({ SourceArn: pair.dlqArn, DestinationArn: `${pair.queueArn}doesntexist` }))
      .rejects.toMatchObject({ name: 'ResourceNotFoundException', message: "The resource that you specified for the DestinationArn parameter doesn't exist." });
    await expect(start({ SourceArn: '' })).rejects.toMatchObject({ name: 'MissingParameter' });
  });

  it('refuses a destination of the other queue type, the DLQ itself, and a rate outside 1 to 500', async () => {
    const pair = await deadLetterPair(local, 'refusals-type');
    const fifoArn = await queueArn(local, await local.createQueue(queueName('fifo-destination', true)));
    await expect(start({ SourceArn: pair.dlqArn, DestinationArn: fifoArn })).rejects.toMatchObject({ name: 'InvalidParameterValue', message: expect.stringContaining('standard queue') });
    await expect(start({ SourceArn: pair.dlqArn, DestinationArn: pair.dlqArn })).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    await expect(start({ SourceArn: pair.dlqArn, MaxNumberOfMessagesPerSecond: 0 })).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    await expect(start({ SourceArn: pair.dlqArn, MaxNumberOfMessagesPerSecond: 501 })).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    expect((await local.client.send(new ListMessageMoveTasksCommand({ SourceArn: pair.dlqArn }))).Results).toEqual([]);
  });

  it('refuses a second task while one is active on the source', async () => {
    const pair = await deadLetterPair(local, 'second-task');
    await send(pair.queueUrl, 'a');
    await send(pair.queueUrl, 'b');
    await deadLetterAll(local, pair.queueUrl);
    const { TaskHandle } = await start({ SourceArn: pair.dlqArn, MaxNumberOfMessagesPerSecond: 1 });
    await expect(start({ SourceArn: pair.dlqArn })).rejects.toMatchObject({
      name: 'InvalidParameterValue',
      message: 'There is already a task running. Only one active task is allowed for a source queue arn at a given time.',
    });
    await cancel(TaskHandle!);
    await waitForTask(local, pair.dlqArn, isDone);
  });
});

describe('FIFO: into the DLQ and back out', () => {
  it('replaces the MessageDeduplicationId with the message id on the move into a FIFO DLQ, keeping id and group', async () => {
    const pair = await deadLetterPair(local, 'fifo-dlq', true);
    const first = await send(pair.queueUrl, 'f1', { MessageGroupId: 'g', MessageDeduplicationId: 'order-1' });
    const second = await send(pair.queueUrl, 'f2', { MessageGroupId: 'g', MessageDeduplicationId: 'order-2' });
    await deadLetterAll(local, pair.queueUrl);
    const dead = await receive(pair.dlqUrl, { VisibilityTimeout: 0 });
    expect(dead.map((message) => [message.MessageId, message.Attributes?.MessageDeduplicationId, message.Attributes?.MessageGroupId]))
      .toEqual([[first.MessageId, first.MessageId, 'g'], [second.MessageId, second.MessageId, 'g']]);
  });

  it('redrives to the FIFO source in order as new messages: new ids and sequence numbers, group kept, deduplication id as the DLQ held it', async () => {
    const pair = await deadLetterPair(local, 'fifo-back', true);
    const first = await send(pair.queueUrl, 'f1', { MessageGroupId: 'g', MessageDeduplicationId: 'order-1' });
    const second = await send(pair.queueUrl, 'f2', { MessageGroupId: 'g', MessageDeduplicationId: 'order-2' });
    await deadLetterAll(local, pair.queueUrl);
    await start({ SourceArn: pair.dlqArn });
    expect(await waitForTask(local, pair.dlqArn, isDone)).toMatchObject({ Status: 'COMPLETED', ApproximateNumberOfMessagesMoved: 2 });
    const redriven = await receive(pair.queueUrl);
    expect(bodies(redriven)).toEqual(['f1', 'f2']);
    expect(redriven.map((message) => message.Attributes?.MessageGroupId)).toEqual(['g', 'g']);
    expect(redriven.map((message) => message.Attributes?.MessageDeduplicationId)).toEqual([first.MessageId, second.MessageId]);
    expect(redriven.map((message) => message.Attributes?.ApproximateReceiveCount)).toEqual(['1', '1']);
    expect(redriven.map((message) => message.MessageId)).not.toContain(first.MessageId);
    expect(redriven.map((message) => message.MessageId)).not.toContain(second.MessageId);
    const sequence = redriven.map((message) => BigInt(message.Attributes!.SequenceNumber!));
    expect(sequence[0]! > BigInt(second.SequenceNumber!)).toBe(true);
    expect(sequence[1]! > sequence[0]!).toBe(true);
  });
});
