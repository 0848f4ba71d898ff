import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { startLocalStack, waitUntilDrained, type LocalStack, type StartLocalStackOptions } from '../../demo/local-stack.js';
import { startEventSource, type EventSourceStats } from '../../local/event-source/index.js';
import { freshDatabase, type FreshDatabase } from './database.js';

/** The local stack on a database of the test's own. */
export interface TestStack {
  readonly stack: LocalStack;
  readonly database: FreshDatabase;
  close(): Promise<void>;
}

/** Starts the emulators and queues on a fresh migrated database. */
export async function openLocalStack(options: Omit<StartLocalStackOptions, 'databaseUrl'>): Promise<TestStack> {
  const database = await freshDatabase();
  try {
    const stack = await startLocalStack({ ...options, databaseUrl: database.url });
    return {
      stack,
      database,
      close: async () => {
        await stack.close();
        await database.close();
      },
    };
  } catch (error) {
    await database.close();
    throw error;
  }
}

/**
 * Runs `handler` behind the event-source poller until the queue has drained (every message
 * deleted or moved to the DLQ), then stops the poller and answers its counts.
 */
export async function consumeUntilDrained(
  stack: LocalStack,
  handler: (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>,
  options: { pollers?: number; batchSize?: number; timeoutMs?: number } = {},
): Promise<EventSourceStats> {
  const source = await startEventSource({
    client: stack.sqsClient,
    queueUrl: stack.queueUrl,
    handler,
    pollers: options.pollers ?? 3,
    batchSize: options.batchSize ?? 10,
    functionTimeoutMs: 15_000,
    waitTimeSeconds: 1,
    onError: () => undefined,
  });
  try {
    await waitUntilDrained(stack.sqsClient, stack.queueUrl, { timeoutMs: options.timeoutMs ?? 60_000, intervalMs: 100 });
  } finally {
    await source.stop();
  }
  return { ...source.stats };
}
