import { randomUUID } from 'node:crypto';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { createQueue, localSqsClient, startSqs, type RunningSqs, type StartSqsOptions } from '../../local/sqs/index.js';

/** A clock a test moves forward instead of waiting. */
export interface TestClock {
  now(): number;
  /** Moves the clock forward by seconds. */
  advance(seconds: number): void;
}

/** The wall clock, moved forward by whatever the test advanced. */
export function testClock(): TestClock {
  let offsetMs = 0;
  return {
    now: () => Date.now() + offsetMs,
    advance: (seconds) => {
      offsetMs += seconds * 1000;
    },
  };
}

/** A clock that moves only when the test advances it, so a rate-limited step takes the same time however slow the machine is. */
export function frozenClock(): TestClock {
  let nowMs = Date.now();
  return {
    now: () => nowMs,
    advance: (seconds) => {
      nowMs += seconds * 1000;
    },
  };
}

/** A queue name no other test uses; FIFO names end in `.fifo`. */
export function queueName(prefix: string, fifo = false): string {
  return `${prefix}-${randomUUID().slice(0, 8)}${fifo ? '.fifo' : ''}`;
}

/** An emulator on a test clock, the real SDK client on it, and a helper that creates queues. */
export interface TestSqs {
  readonly sqs: RunningSqs;
  readonly client: SQSClient;
  readonly clock: TestClock;
  /** Creates a queue with these attributes and answers its URL; a name ending in `.fifo` makes a FIFO queue. */
  createQueue(name: string, attributes?: Record<string, string>): Promise<string>;
  close(): Promise<void>;
}

export async function startTestSqs(options: Omit<StartSqsOptions, 'now'> = {}, clock: TestClock = testClock()): Promise<TestSqs> {
  const sqs = await startSqs({ ...options, now: clock.now });
  const client = localSqsClient(sqs.endpoint);
  return {
    sqs,
    client,
    clock,
    async createQueue(name, attributes = {}) {
      return (await createQueue(client, name, { attributes })).queueUrl;
    },
    async close() {
      client.destroy();
      await sqs.close();
    },
  };
}
