import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedriveError, redriveDeadLetters } from '../../local/sqs/index.js';
import { deadLetterAll, deadLetterPair, queueArn, startFrozenTestSqs } from '../support/dead-letters.js';
import { queueName, type TestSqs } from '../support/sqs.js';

let local: TestSqs;

beforeAll(async () => {
  local = await startFrozenTestSqs();
});

afterAll(async () => {
  await local.close();
});

async function bodiesIn(QueueUrl: string): Promise<string[]> {
  const { Messages } = await local.client.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
  return (Messages ?? []).map((message) => message.Body!);
}

async function deadLetters(prefix: string, bodies: string[]) {
  const pair = await deadLetterPair(local, prefix);
  for (const body of bodies) await local.client.send(new SendMessageCommand({ QueueUrl: pair.queueUrl, MessageBody: body }));
  await deadLetterAll(local, pair.queueUrl);
  return pair;
}

describe('redriveDeadLetters: start a message move task and wait until it has completed', () => {
  it('answers once every message is back in its source queue, with the task\'s counts', async () => {
    const pair = await deadLetters('helper-back', ['a', 'b']);
    const result = await redriveDeadLetters(local.client, { sourceArn: pair.dlqArn, pollIntervalMs: 10 });
    expect(result).toEqual({ taskHandle: expect.any(String), approximateNumberOfMessagesMoved: 2, approximateNumberOfMessagesToMove: 2 });
    expect(await bodiesIn(pair.queueUrl)).toEqual(['a', 'b']);
    expect(await bodiesIn(pair.dlqUrl)).toEqual([]);
  });

  it('moves to destinationArn when given, and answers zero moved for an empty DLQ', async () => {
    const pair = await deadLetters('helper-destination', ['c']);
    const destinationUrl = await local.createQueue(queueName('helper-target'));
    const moved = await redriveDeadLetters(local.client, { sourceArn: pair.dlqArn, destinationArn: await queueArn(local, destinationUrl), pollIntervalMs: 10 });
    expect(moved.approximateNumberOfMessagesMoved).toBe(1);
    expect(await bodiesIn(destinationUrl)).toEqual(['c']);
    expect(await redriveDeadLetters(local.client, { sourceArn: pair.dlqArn, pollIntervalMs: 10 }))
      .toMatchObject({ approximateNumberOfMessagesMoved: 0, approximateNumberOfMessagesToMove: 0 });
  });

  it('throws RedriveError with the task when it fails, leaving the message it could not move in the DLQ', async () => {
    const pair = await deadLetterPair(local, 'helper-failed');
    await local.client.send(new SendMessageCommand({ QueueUrl: pair.dlqUrl, MessageBody: 'sent directly' }));
    const failure = await redriveDeadLetters(local.client, { sourceArn: pair.dlqArn, pollIntervalMs: 10 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RedriveError);
    expect(failure).toMatchObject({
      message: expect.stringContaining('ended FAILED (CouldNotDetermineMessageSource) after moving 0 of 1 messages'),
      task: { Status: 'FAILED', FailureReason: 'CouldNotDetermineMessageSource' },
    });
    expect(await bodiesIn(pair.dlqUrl)).toEqual(['sent directly']);
  });

  it('throws RedriveError when the task is still running at timeoutMs', async () => {
    const pair = await deadLetters('helper-slow', ['x', 'y']);
    const failure = await redriveDeadLetters(local.client, { sourceArn: pair.dlqArn, maxNumberOfMessagesPerSecond: 1, pollIntervalMs: 10, timeoutMs: 200 })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RedriveError);
    expect(failure).toMatchObject({ message: expect.stringContaining('was still RUNNING after 200 ms'), task: { Status: 'RUNNING', ApproximateNumberOfMessagesMoved: 1 } });
    await expect(redriveDeadLetters(local.client, { sourceArn: pair.dlqArn, pollIntervalMs: 10 }))
      .rejects.toMatchObject({ name: 'InvalidParameterValue', message: expect.stringContaining('already a task running') });
    local.clock.advance(1);
  });

  it('passes the service\'s refusal of a queue that is no DLQ on as the SDK\'s error', async () => {
    const pair = await deadLetterPair(local, 'helper-no-dlq');
    await expect(redriveDeadLetters(local.client, { sourceArn: pair.queueArn })).rejects.toMatchObject({ name: 'InvalidParameterValue', message: 'Source queue must be configured as a Dead Letter Queue.' });
  });
});
