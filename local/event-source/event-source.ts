import { DeleteMessageBatchCommand, GetQueueAttributesCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { AWS_LIMITS, backoffDelay, sleep, withDefaults } from '../../functions/inbox/internal.js';
import { LocalConfigError, LocalStackError } from '../errors.js';
import { invokeWithTimeout } from '../lambda-invocation.js';
import { quietly } from '../quietly.js';
import { settingChecks } from '../setting-checks.js';
import { batchResult, type BatchResult } from './batch-result.js';
import { FUNCTION_NAME, lambdaContext } from './lambda-context.js';
import { toSqsRecord, type EventSourceQueue } from './sqs-event.js';

/** A Lambda handler for SQS events, as `inbox()` behind middy or a plain async function gives one. */
export type EventSourceHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void | undefined> | SQSBatchResponse | void;

/** Options of `startEventSource`. */
export interface StartEventSourceOptions {
  /** Any SQSClient: `localSqsClient(endpoint)` for the emulator, `new SQSClient({})` for a real queue with your credentials. */
  readonly client: SQSClient;
  readonly queueUrl: string;
  readonly handler: EventSourceHandler;
  /**
   * Records per invocation: 1 to 10 on FIFO, 1 to 10000 on standard (above 10 needs `maxBatchingWindowMs`), as on Lambda.
   * @default 10
   */
  readonly batchSize?: number;
  /**
   * How long a poller gathers records for a batch over 10 before invoking with what it has. Standard queues only.
   * @default 0
   */
  readonly maxBatchingWindowMs?: number;
  /**
   * Pollers, each receiving and invoking one batch at a time: the invocations that run at once.
   * @default 2
   */
  readonly pollers?: number;
  /**
   * The function timeout: `getRemainingTimeInMillis()` counts down from it, and an invocation still
   * running then fails its whole batch.
   * @default 30000
   */
  readonly functionTimeoutMs?: number;
  /**
   * Long-poll wait of each receive, 0 to 20 seconds; Lambda waits 20. A shorter wait makes `stop()` quicker on a real queue.
   * @default 20
   */
  readonly waitTimeSeconds?: number;
  /**
   * Read `batchItemFailures` from the response, as the event source mapping's ReportBatchItemFailures does.
   * @default true
   */
  readonly reportBatchItemFailures?: boolean;
  /**
   * The function name in the context and its ARN.
   * @default 'local-function'
   */
  readonly functionName?: string;
  /**
   * Told about every invocation once its deletes are done; a throw here is ignored.
   * @default none
   */
  readonly onBatch?: (report: BatchReport) => void;
  /**
   * Told about a failed receive or delete (the poller goes on, backing off); a throw here is ignored.
   * @default console.warn
   */
  readonly onError?: (error: unknown, during: 'receive' | 'delete') => void;
}

/** One invocation, as `onBatch` is told about it. */
export interface BatchReport {
  readonly poller: number;
  readonly requestId: string;
  readonly records: readonly SQSRecord[];
  readonly result: BatchResult;
  /** Records deleted from the queue after the invocation. */
  readonly deleted: number;
  readonly durationMs: number;
}

/** Counts since the start. */
export interface EventSourceStats {
  invocations: number;
  records: number;
  /** Records deleted after their invocation acknowledged them. */
  deleted: number;
  /** Records left for redelivery: failed alone or with their whole batch. */
  failedRecords: number;
  /** Batches failed whole, by why. */
  errors: number;
  timeouts: number;
  invalidResponses: number;
  partialBatches: number;
  /** Records whose delete SQS refused or that a failed call did not delete. */
  deleteFailures: number;
  receiveFailures: number;
}

/** A running event source. */
export interface RunningEventSource {
  /** Stops polling, waits for running invocations and their deletes, and resolves. */
  stop(): Promise<void>;
  readonly stats: Readonly<EventSourceStats>;
  /** The queue's ARN and region, as the records carry them. */
  readonly queue: EventSourceQueue;
}

const DEFAULTS = {
  batchSize: 10,
  maxBatchingWindowMs: 0,
  pollers: 2,
  functionTimeoutMs: 30_000,
  waitTimeSeconds: 20,
  reportBatchItemFailures: true,
  functionName: 'local-function',
  onBatch: () => undefined,
  onError: (error: unknown, during: string) => console.warn(`event source: ${during} failed`, error),
} as const;
const MAX_RECEIVE = AWS_LIMITS.sqs.batchEntries;
const { batchSize: BATCH_SIZE, fifoBatchSize: FIFO_BATCH_SIZE, batchingWindowSeconds: BATCHING_WINDOW_SECONDS } = AWS_LIMITS.lambdaSqs;
// A failed receive is tried again after 100 ms, doubling up to 2 s, as Lambda's pollers back off.
const RECEIVE_BACKOFF = { baseMs: 100, maxMs: 2000, jitter: 'none' } as const;

type Settings = Required<StartEventSourceOptions>;

function queueFromArn(arn: string): EventSourceQueue & { accountId: string } {
  const [, , , region, accountId] = arn.split(':');
  return { arn, region: region ?? '', accountId: accountId ?? '' };
}

/** The options with their defaults, after the checks that need no queue. */
function checkedSettings(options: StartEventSourceOptions): Settings {
  const settings: Settings = withDefaults(DEFAULTS, options);
  if (!settings.client || typeof settings.client.send !== 'function') throw new LocalConfigError('client must be an SQSClient.');
  if (typeof settings.queueUrl !== 'string' || settings.queueUrl === '') throw new LocalConfigError('queueUrl must be the URL of an SQS queue.');
  const check = settingChecks(settings);
  check.callable('handler', '(event, context) => Promise<SQSBatchResponse | void>');
  check.matches('functionName', FUNCTION_NAME.pattern, FUNCTION_NAME.described);
  check.whole('pollers', 1, 100);
  check.whole('functionTimeoutMs', 1, AWS_LIMITS.lambda.timeoutSeconds.max * 1000);
  check.whole('waitTimeSeconds', 0, 20);
  check.whole('maxBatchingWindowMs', BATCHING_WINDOW_SECONDS.min * 1000, BATCHING_WINDOW_SECONDS.max * 1000);
  return settings;
}

/** The batch limits Lambda puts on a queue of this kind. */
function checkBatching(settings: Settings, fifo: boolean): void {
  const { min, max } = fifo ? FIFO_BATCH_SIZE : BATCH_SIZE;
  settingChecks(settings).whole('batchSize', min, max);
  if (fifo && settings.maxBatchingWindowMs > 0) throw new LocalConfigError('maxBatchingWindowMs is not available on a FIFO queue, as on Lambda: leave it 0.');
  if (settings.batchSize > FIFO_BATCH_SIZE.max && settings.maxBatchingWindowMs === 0) {
    throw new LocalConfigError(`batchSize ${settings.batchSize} is over ${FIFO_BATCH_SIZE.max}: give maxBatchingWindowMs too, as Lambda requires.`);
  }
}

/** The records an invocation's result lets the poller delete. */
function acknowledgedRecords(result: BatchResult, records: readonly SQSRecord[]): readonly SQSRecord[] {
  if (result.outcome === 'failed') return [];
  if (result.outcome === 'succeeded') return records;
  const failed = new Set(result.failedIds);
  return records.filter((record) => !failed.has(record.messageId));
}

function countResult(stats: EventSourceStats, result: BatchResult, records: number, acknowledged: number): void {
  if (result.outcome === 'failed') {
    if (result.reason === 'error') stats.errors += 1;
    else if (result.reason === 'timeout') stats.timeouts += 1;
    else stats.invalidResponses += 1;
  } else if (result.outcome === 'partial') {
    stats.partialBatches += 1;
  }
  stats.failedRecords += records - acknowledged;
}

/** Receives a batch: one receive, or with a batching window several until the batch is full or the window is over. */
function batchGatherer(settings: Settings, stats: EventSourceStats, stopping: AbortSignal): () => Promise<Message[]> {
  const receive = async (count: number): Promise<Message[]> => {
    const { Messages } = await settings.client.send(new ReceiveMessageCommand({
      QueueUrl: settings.queueUrl,
      MaxNumberOfMessages: count,
      WaitTimeSeconds: settings.waitTimeSeconds,
      MessageSystemAttributeNames: ['All'],
      MessageAttributeNames: ['All'],
    }), { abortSignal: stopping });
    return Messages ?? [];
  };
  return async () => {
    const messages = await receive(Math.min(MAX_RECEIVE, settings.batchSize));
    if (messages.length === 0 || settings.maxBatchingWindowMs === 0) return messages;
    const windowEnd = performance.now() + settings.maxBatchingWindowMs;
    while (messages.length < settings.batchSize && performance.now() < windowEnd && !stopping.aborted) {
      try {
        messages.push(...await receive(Math.min(MAX_RECEIVE, settings.batchSize - messages.length)));
      } catch (error) {
        // What was gathered is in flight already: invoke with it rather than leave it hidden for a visibility timeout.
        if (!stopping.aborted) {
          stats.receiveFailures += 1;
          quietly(() => settings.onError(error, 'receive'));
        }
        break;
      }
    }
    return messages;
  };
}

/** Deletes acknowledged records in batches of 10 and answers how many SQS deleted; a failure is counted, not thrown. */
function recordDeleter(settings: Settings, stats: EventSourceStats): (records: readonly SQSRecord[]) => Promise<number> {
  return async (records) => {
    let deleted = 0;
    for (let start = 0; start < records.length; start += MAX_RECEIVE) {
      const chunk = records.slice(start, start + MAX_RECEIVE);
      try {
        const { Failed } = await settings.client.send(new DeleteMessageBatchCommand({
          QueueUrl: settings.queueUrl,
          Entries: chunk.map((record, index) => ({ Id: String(index), ReceiptHandle: record.receiptHandle })),
        }));
        const failed = Failed?.length ?? 0;
        deleted += chunk.length - failed;
        stats.deleteFailures += failed;
        if (failed > 0) quietly(() => settings.onError(new LocalStackError(`DeleteMessageBatch refused ${failed} entries: ${JSON.stringify(Failed)}`), 'delete'));
      } catch (error) {
        stats.deleteFailures += chunk.length;
        quietly(() => settings.onError(error, 'delete'));
      }
    }
    return deleted;
  };
}

/**
 * Lambda's SQS event source mapping on one machine: pollers that long-poll a queue, hand each batch
 * to the handler as an SQSEvent with a Lambda-like context, delete what the invocation acknowledged
 * (DeleteMessageBatch) and leave the rest to reappear after the visibility timeout. A thrown error,
 * a timeout or an invalid batch response fails the whole batch, as in Lambda. On a FIFO queue SQS
 * hands out a message group to one receiver at a time and each poller runs one batch at a time, so
 * a group is never in two invocations at once and its records arrive in order. Only the given
 * SQSClient is used, so the same code polls the emulator or a real queue.
 *
 * @example
 * ```ts
 * const source = await startEventSource({
 *   client: localSqsClient(sqs.endpoint),
 *   queueUrl,
 *   handler: middy().use(inbox({ consumer: 'orders', db, handle })).handler(async () => undefined),
 *   functionTimeoutMs: 10_000,
 *   waitTimeSeconds: 1,
 * });
 * await source.stop();
 * ```
 */
export async function startEventSource(options: StartEventSourceOptions): Promise<RunningEventSource> {
  const settings = checkedSettings(options);
  const { Attributes } = await settings.client.send(new GetQueueAttributesCommand({ QueueUrl: settings.queueUrl, AttributeNames: ['QueueArn', 'FifoQueue'] }));
  checkBatching(settings, Attributes?.FifoQueue === 'true');
  const queue = queueFromArn(Attributes?.QueueArn ?? '');

  const stats: EventSourceStats = {
    invocations: 0, records: 0, deleted: 0, failedRecords: 0, errors: 0, timeouts: 0, invalidResponses: 0, partialBatches: 0, deleteFailures: 0, receiveFailures: 0,
  };
  const stopping = new AbortController();
  const gather = batchGatherer(settings, stats, stopping.signal);
  const deleteRecords = recordDeleter(settings, stats);

  const runBatch = async (poller: number, messages: Message[]): Promise<void> => {
    const started = performance.now();
    const records = messages.map((message) => toSqsRecord(message, queue));
    const context = lambdaContext({ functionName: settings.functionName, timeoutMs: settings.functionTimeoutMs, region: queue.region, accountId: queue.accountId });
    stats.invocations += 1;
    stats.records += records.length;
    const result = batchResult(await invokeWithTimeout(settings.handler, { Records: records }, context, settings.functionTimeoutMs), records, settings.reportBatchItemFailures);
    const acknowledged = acknowledgedRecords(result, records);
    countResult(stats, result, records.length, acknowledged.length);
    const deleted = acknowledged.length === 0 ? 0 : await deleteRecords(acknowledged);
    stats.deleted += deleted;
    quietly(() => settings.onBatch({ poller, requestId: context.awsRequestId, records, result, deleted, durationMs: performance.now() - started }));
  };

  const poll = async (poller: number): Promise<void> => {
    let failures = 0;
    while (!stopping.signal.aborted) {
      let messages: Message[];
      try {
        messages = await gather();
        failures = 0;
      } catch (error) {
        if (stopping.signal.aborted) return;
        stats.receiveFailures += 1;
        quietly(() => settings.onError(error, 'receive'));
        failures += 1;
        await sleep(backoffDelay(failures, RECEIVE_BACKOFF));
        continue;
      }
      // Messages received as the stop came are still handed over: dropping them would hide them for a visibility timeout.
      if (messages.length > 0) await runBatch(poller, messages);
    }
  };

  const loops = Array.from({ length: settings.pollers }, (_, index) => poll(index));
  return {
    stats,
    queue: { arn: queue.arn, region: queue.region },
    async stop(): Promise<void> {
      stopping.abort();
      await Promise.all(loops);
    },
  };
}
