import { GetQueueAttributesCommand, ListMessageMoveTasksCommand, ReceiveMessageCommand, type ListMessageMoveTasksResultEntry } from '@aws-sdk/client-sqs';
import { vi } from 'vitest';
import { createQueue } from '../../local/sqs/index.js';
import { frozenClock, queueName, startTestSqs, type TestSqs } from './sqs.js';

/**
 * An emulator on a clock that moves only when the test advances it, so a rate-limited message move
 * task moves exactly what the seconds advanced allow, however slow the machine is.
 */
export function startFrozenTestSqs(): Promise<TestSqs> {
  return startTestSqs({}, frozenClock());
}

/** A queue whose DLQ takes a message at its second receive, with both ARNs. */
export interface DeadLetterPair {
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly dlqUrl: string;
  readonly dlqArn: string;
}

export async function queueArn(local: TestSqs, queueUrl: string): Promise<string> {
  const { Attributes } = await local.client.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }));
  return Attributes!.QueueArn!;
}

/** A queue (FIFO when `fifo`) with VisibilityTimeout 1 and a DLQ after one receive. */
export async function deadLetterPair(local: TestSqs, prefix: string, fifo = false, attributes: Record<string, string> = {}): Promise<DeadLetterPair> {
  const created = await createQueue(local.client, queueName(prefix, fifo), { attributes: { VisibilityTimeout: '1', ...attributes }, deadLetter: { maxReceiveCount: 1 } });
  return {
    queueUrl: created.queueUrl,
    queueArn: await queueArn(local, created.queueUrl),
    dlqUrl: created.deadLetterQueueUrl!,
    dlqArn: await queueArn(local, created.deadLetterQueueUrl!),
  };
}

/**
 * Moves every message of a queue with VisibilityTimeout 1 and maxReceiveCount 1 (at most 10) to
 * its DLQ: one receive, the timeout runs out, and the next receive redrives them instead.
 */
export async function deadLetterAll(local: TestSqs, queueUrl: string): Promise<void> {
  await local.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }));
  local.clock.advance(1);
  const { Messages } = await local.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }));
  if (Messages !== undefined) throw new Error(`expected every message of ${queueUrl} in its DLQ, but ${Messages.length} were received`);
}

/** The newest message move task of a source, once `done` holds for it (the task runs in the background). */
export async function waitForTask(local: TestSqs, sourceArn: string, done: (task: ListMessageMoveTasksResultEntry) => boolean): Promise<ListMessageMoveTasksResultEntry> {
  return vi.waitFor(async () => {
    const { Results } = await local.client.send(new ListMessageMoveTasksCommand({ SourceArn: sourceArn }));
    const task = Results?.[0];
    if (task === undefined || !done(task)) throw new Error(`task of ${sourceArn} not there yet: ${JSON.stringify(task)}`);
    return task;
  }, { timeout: 5_000, interval: 10 });
}
