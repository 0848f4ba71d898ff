import { DeleteMessageBatchCommand, GetQueueAttributesCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { RDSDataClient } from '@aws-sdk/client-rds-data';
import type { Database } from '../functions/inbox/index.js';
import { withDefaults } from '../functions/inbox/internal.js';
import { localDataApiClient, localDataApiDatabase, startDataApi, type RunningDataApi } from '../local/data-api/index.js';
import { createQueue, localSqsClient, redriveDeadLetters, startSqs, type RunningSqs, type SqsFaults } from '../local/sqs/index.js';
import { waitUntil } from './wait-until.js';

/** Options of `startLocalStack`. */
export interface StartLocalStackOptions {
  /** The PostgreSQL database the worker writes to; the Data API emulator serves its server. */
  readonly databaseUrl: string;
  /** A FIFO queue with a FIFO DLQ, or standard ones. */
  readonly fifo: boolean;
  /**
   * The queue's visibility timeout: how soon a failed message comes back. Short, so a run is quick;
   * a deployed queue has at least 6 times the function timeout.
   * @default 2
   */
  readonly visibilityTimeoutSeconds?: number;
  /**
   * Receives before SQS moves a message to the DLQ.
   * @default 5
   */
  readonly maxReceiveCount?: number;
  /**
   * Faults the SQS emulator injects; see `SqsFaults`.
   * @default none
   */
  readonly sqsFaults?: SqsFaults;
  /**
   * The queue's name; `.fifo` is added on FIFO, and `-dlq` names its DLQ.
   * @default 'orders'
   */
  readonly queueName?: string;
  /**
   * How long the Data API emulator keeps a transaction without a call before rolling it back.
   * @default 180000 (3 minutes, as the service)
   */
  readonly transactionIdleTimeoutMs?: number;
  /**
   * Transactions the Data API emulator holds open at once; a BeginTransaction beyond them gets ServiceUnavailableError.
   * @default 100 (the emulator's own)
   */
  readonly maxTransactions?: number;
  /**
   * The SQS emulator's clock (sends, visibility, the deduplication window), for a test that moves time on.
   * @default Date.now
   */
  readonly sqsClock?: () => number;
  /**
   * The SQS emulator's FIFO deduplication window.
   * @default 300000 (5 minutes, as SQS)
   */
  readonly sqsDeduplicationWindowMs?: number;
}

/** What runs: the emulators, the real SDK clients on them, the queues and the worker's database. */
export interface LocalStack {
  /** The production driver (`dataApiDatabase`) through the Data API emulator. */
  readonly db: Database;
  readonly dataApi: RunningDataApi;
  readonly dataApiClient: RDSDataClient;
  readonly sqs: RunningSqs;
  readonly sqsClient: SQSClient;
  readonly queueUrl: string;
  readonly deadLetterQueueUrl: string;
  /** Stops the emulators and destroys the clients; the database is left as it is. */
  close(): Promise<void>;
}

/** Messages a queue holds: visible, in flight and delayed. */
export interface QueueDepth {
  readonly visible: number;
  readonly inFlight: number;
  readonly delayed: number;
}

/** The defaults of `startLocalStack`, in one place. */
export const LOCAL_STACK_DEFAULTS = { visibilityTimeoutSeconds: 2, maxReceiveCount: 5, sqsFaults: {}, queueName: 'orders' } as const;
// As the reference stack: the DLQ keeps messages 14 days, the queue 4.
const RETENTION_SECONDS = { queue: 4 * 24 * 3600, deadLetterQueue: 14 * 24 * 3600 } as const;

/**
 * AWS on one machine for an SQS consumer on Aurora: the RDS Data API emulator in front of the given
 * database's server, the SQS emulator with a queue whose redrive policy moves a message to its DLQ
 * after `maxReceiveCount` receives (both FIFO, or both standard, as the construct makes them), and
 * the real SDK clients on both, all on 127.0.0.1.
 *
 * @example
 * ```ts
 * const stack = await startLocalStack({ databaseUrl, fifo: true });
 * const source = await startEventSource({ client: stack.sqsClient, queueUrl: stack.queueUrl, handler: middy().use(inbox(shipOrderOptions(stack.db))) });
 * await sendMessages(stack.sqsClient, stack.queueUrl, [{ body: { orderId }, groupId: 'customer-1' }]);
 * await source.stop();
 * await stack.close();
 * ```
 */
export async function startLocalStack(options: StartLocalStackOptions): Promise<LocalStack> {
  const settings = withDefaults(LOCAL_STACK_DEFAULTS, options);
  const database = decodeURIComponent(new URL(settings.databaseUrl).pathname.slice(1));
  const dataApi = await startDataApi({ databaseUrl: settings.databaseUrl, idleTimeoutMs: settings.transactionIdleTimeoutMs || undefined, maxTransactions: settings.maxTransactions });
  const dataApiClient = localDataApiClient(dataApi.endpoint);
  let sqs: RunningSqs | undefined;
  let sqsClient: SQSClient | undefined;
  const close = async () => {
    sqsClient?.destroy();
    await sqs?.close();
    dataApiClient.destroy();
    await dataApi.close();
  };
  try {
    sqs = await startSqs({
      faults: settings.sqsFaults,
      ...(settings.sqsClock ? { now: settings.sqsClock } : {}),
      ...(settings.sqsDeduplicationWindowMs ? { deduplicationWindowMs: settings.sqsDeduplicationWindowMs } : {}),
    });
    sqsClient = localSqsClient(sqs.endpoint, sqs.region);
    const { queueUrl, deadLetterQueueUrl } = await createQueue(sqsClient, `${settings.queueName}${settings.fifo ? '.fifo' : ''}`, {
      attributes: { VisibilityTimeout: String(settings.visibilityTimeoutSeconds), MessageRetentionPeriod: String(RETENTION_SECONDS.queue) },
      deadLetter: { maxReceiveCount: settings.maxReceiveCount, attributes: { MessageRetentionPeriod: String(RETENTION_SECONDS.deadLetterQueue) } },
    });
    return {
      db: localDataApiDatabase(dataApiClient, database),
      dataApi,
      dataApiClient,
      sqs,
      sqsClient,
      queueUrl,
      deadLetterQueueUrl: deadLetterQueueUrl!,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * How many messages a queue holds, from GetQueueAttributes.
 *
 * @example
 * ```ts
 * const { visible, inFlight, delayed } = await queueDepth(stack.sqsClient, stack.queueUrl);
 * ```
 */
export async function queueDepth(client: SQSClient, queueUrl: string): Promise<QueueDepth> {
  const { Attributes } = await client.send(new GetQueueAttributesCommand({
    QueueUrl: queueUrl,
    AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
  }));
  return {
    visible: Number(Attributes?.ApproximateNumberOfMessages ?? 0),
    inFlight: Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0),
    delayed: Number(Attributes?.ApproximateNumberOfMessagesDelayed ?? 0),
  };
}

/** Whether a queue holds nothing, visible, in flight or delayed. */
export const queueIsEmpty = (depth: QueueDepth) => depth.visible + depth.inFlight + depth.delayed === 0;

/**
 * Moves what a DLQ holds back to its source queue, as an operator redrives it; resolves with the messages moved.
 *
 * @example
 * ```ts
 * const moved = await redriveQueue(stack.sqsClient, stack.deadLetterQueueUrl);
 * ```
 */
export async function redriveQueue(client: SQSClient, deadLetterQueueUrl: string): Promise<number> {
  const { Attributes } = await client.send(new GetQueueAttributesCommand({ QueueUrl: deadLetterQueueUrl, AttributeNames: ['QueueArn'] }));
  return (await redriveDeadLetters(client, { sourceArn: Attributes!.QueueArn!, pollIntervalMs: 100 })).approximateNumberOfMessagesMoved;
}

/**
 * Receives and deletes every visible message of a queue, with their attributes, until a receive
 * comes back empty. Deleting is what lets a FIFO queue hand out the rest of a group.
 *
 * @example
 * ```ts
 * const parked = await drainQueue(stack.sqsClient, stack.deadLetterQueueUrl);
 * ```
 */
export async function drainQueue(client: SQSClient, queueUrl: string): Promise<Message[]> {
  const drained: Message[] = [];
  for (;;) {
    const { Messages = [] } = await client.send(new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 0,
      VisibilityTimeout: 60,
      MessageSystemAttributeNames: ['All'],
      MessageAttributeNames: ['All'],
    }));
    if (Messages.length === 0) return drained;
    drained.push(...Messages);
    await client.send(new DeleteMessageBatchCommand({
      QueueUrl: queueUrl,
      Entries: Messages.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle! })),
    }));
  }
}

/** Options of `waitUntilDrained`. */
export interface WaitUntilDrainedOptions {
  /** How long the queue may take; then the wait throws, saying what is left. */
  readonly timeoutMs: number;
  /**
   * How often the queue is looked at.
   * @default 250
   */
  readonly intervalMs?: number;
  /**
   * Whether an empty queue means done yet: false while a producer is still sending. A throw ends the wait with it.
   * @default () => true
   */
  readonly ready?: () => boolean;
  /**
   * Called at each look, before the queue is judged.
   * @default none
   */
  readonly onPoll?: () => Promise<void> | void;
}


/** A queue still held messages when the wait for it to drain ran out. */
export class QueueNotDrainedError extends Error {
  public constructor(queueUrl: string, depth: QueueDepth, timeoutMs: number, producerDone: boolean) {
    super(`${queueUrl} still held ${depth.visible} visible, ${depth.inFlight} in-flight and ${depth.delayed} delayed messages after ${timeoutMs} ms`
      + `${producerDone ? '' : ', and its producer was not done'}: look for a consumer that stopped, or wait longer.`);
    this.name = 'QueueNotDrainedError';
  }
}

/**
 * Waits until a queue holds nothing, visible, in flight or delayed: every message was deleted or
 * moved to the DLQ. Throws `QueueNotDrainedError` when `timeoutMs` runs out first.
 *
 * @example
 * ```ts
 * await waitUntilDrained(stack.sqsClient, stack.queueUrl, { timeoutMs: 60_000 });
 * ```
 */
export async function waitUntilDrained(client: SQSClient, queueUrl: string, options: WaitUntilDrainedOptions): Promise<void> {
  const look = async () => {
    await options.onPoll?.();
    const ready = options.ready?.() ?? true;
    return { ready, depth: await queueDepth(client, queueUrl) };
  };
  await waitUntil(look, ({ ready, depth }) => ready && queueIsEmpty(depth), {
    timeoutMs: options.timeoutMs,
    intervalMs: options.intervalMs,
    timedOut: ({ ready, depth }) => new QueueNotDrainedError(queueUrl, depth, options.timeoutMs, ready),
  });
}
