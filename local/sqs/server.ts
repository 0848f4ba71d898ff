import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { jsonObjectBody, listenOnLoopback, readBody } from '../loopback-http.js';
import { ACCOUNT_ID, settingChecks } from '../setting-checks.js';
import { localSqsClient } from './client.js';
import { createQueue, type CreatedQueue, type CreateQueueOptions } from './create-queue.js';
import type { FaultCounts, SqsFaults } from './faults.js';
import { MoveTasks } from './move-tasks.js';
import type { OperationContext } from './operation-context.js';
import { OPERATIONS } from './operations.js';
import { queuedMessage, type QueuedMessage } from './queued-message.js';
import { Queues } from './queues.js';
import { SqsError, internalError, serializationError, sqsErrorOf, unsupportedOperation } from './sqs-errors.js';
import { withDefaults } from '../../functions/inbox/internal.js';

/** Options of `startSqs`. */
export interface StartSqsOptions {
  /**
   * The port on 127.0.0.1.
   * @default 0 (a free port)
   */
  readonly port?: number;
  /**
   * The clock of sends, visibility timeouts, delays, retention and the deduplication window, in
   * milliseconds since the epoch; a test moves it forward instead of waiting. Long-poll waits are real time.
   * @default Date.now
   */
  readonly now?: () => number;
  /**
   * The account in queue URLs and ARNs.
   * @default '000000000000'
   */
  readonly accountId?: string;
  /**
   * The region in queue ARNs.
   * @default 'us-east-1'
   */
  readonly region?: string;
  /**
   * Faults to inject; see `SqsFaults`. `setFaults` replaces them later.
   * @default none
   */
  readonly faults?: SqsFaults;
  /**
   * How often a waiting long poll looks at the clock again, and a running message move task moves on.
   * @default 20
   */
  readonly pollIntervalMs?: number;
  /**
   * How long a FIFO queue remembers a MessageDeduplicationId (SQS: 5 minutes, fixed). A run that
   * scales its timeouts down scales this with them, so a copy sent after the window still arrives.
   * @default 300000
   */
  readonly deduplicationWindowMs?: number;
}

/** Calls answered so far. */
export interface SqsStats {
  /** By operation name. */
  readonly calls: Readonly<Record<string, number>>;
  /** Calls answered with an error, by error shape (QueueDoesNotExist, InvalidParameterValue, ...). */
  readonly errors: Readonly<Record<string, number>>;
  /** How often each injected fault fired. */
  readonly faults: Readonly<FaultCounts>;
}

/** A running emulator. */
export interface RunningSqs {
  /** `http://127.0.0.1:PORT`, for `new SQSClient({ endpoint })`; queue URLs start with it. */
  readonly endpoint: string;
  readonly region: string;
  readonly accountId: string;
  /**
   * Creates a queue, FIFO when its name ends in `.fifo`, and with `deadLetter` its DLQ
   * (`<name>-dlq`) and the redrive policy to it, through this emulator's own CreateQueue.
   */
  createQueue(name: string, options?: CreateQueueOptions): Promise<CreatedQueue>;
  /**
   * The messages a queue holds now, in send order, in flight ones included, read without a receive
   * (nothing about them changes); QueueDoesNotExist for a URL of no queue.
   */
  messages(queueUrl: string): readonly QueuedMessage[];
  /** Replaces the injected faults. */
  setFaults(faults: SqsFaults): void;
  stats(): SqsStats;
  /** Answers waiting long polls (empty), ends the connections and stops listening. */
  close(): Promise<void>;
}

const DEFAULTS = { port: 0, now: Date.now, accountId: '000000000000', region: 'us-east-1', faults: {}, pollIntervalMs: 20, deduplicationWindowMs: 5 * 60 * 1000 } as const;
// SQS takes request bodies of a few MiB at most; a batch holds 256 KiB of messages plus JSON and base64 overhead.
const MAX_REQUEST_BYTES = 2 * 1024 * 1024;
const TARGET_PREFIX = 'AmazonSQS.';

function reply(response: http.ServerResponse, status: number, body: unknown, error?: SqsError): void {
  if (response.destroyed) return;
  const text = JSON.stringify(body);
  const headers: http.OutgoingHttpHeaders = {
    'content-type': 'application/x-amz-json-1.0',
    'content-length': Buffer.byteLength(text),
    'x-amzn-requestid': randomUUID(),
  };
  if (error !== undefined) headers['x-amzn-query-error'] = `${error.code};${error.fault}`;
  response.writeHead(status, headers).end(text);
}

function errorBody(error: SqsError): Record<string, string> {
  const namespace = error.shape === 'SerializationException' || error.shape === 'UnknownOperationException' ? 'com.amazon.coral.service' : 'com.amazonaws.sqs';
  return { __type: `${namespace}#${error.shape}`, message: error.message };
}

function queueNameOf(body: Record<string, unknown>): string | undefined {
  if (typeof body['QueueName'] === 'string') return body['QueueName'];
  if (typeof body['QueueUrl'] !== 'string') return undefined;
  return body['QueueUrl'].split('/').pop();
}

/**
 * Starts a local Amazon SQS on 127.0.0.1, faithful enough that the real `@aws-sdk/client-sqs`
 * (AWS JSON 1.0 protocol, query-compatible errors, MD5 checks of bodies) behaves against it as
 * against SQS: standard and FIFO queues, long polling, visibility timeouts, receipt handles,
 * redrive to a dead-letter queue, retention, FIFO deduplication and message groups, and SQS's
 * errors for bad input. Every error is answered and the server keeps serving. SigV4 is not
 * checked. Operations beyond CreateQueue, GetQueueUrl, GetQueueAttributes, PurgeQueue,
 * SendMessage(Batch), ReceiveMessage, DeleteMessage(Batch), ChangeMessageVisibility(Batch) and the
 * message move tasks of DLQ redrive (Start/List/CancelMessageMoveTask) are answered UnsupportedOperation.
 *
 * @example
 * ```ts
 * const sqs = await startSqs();
 * const client = localSqsClient(sqs.endpoint);
 * const { QueueUrl } = await client.send(new CreateQueueCommand({ QueueName: 'orders', Attributes: { VisibilityTimeout: '1' } }));
 * await client.send(new SendMessageCommand({ QueueUrl, MessageBody: '{"orderId":1}' }));
 * await sqs.close();
 * ```
 */
export async function startSqs(options: StartSqsOptions = {}): Promise<RunningSqs> {
  const settings = checkedSettings(options);
  const server = http.createServer();
  server.keepAliveTimeout = 5_000;
  const endpoint = await listenOnLoopback(server, settings.port);
  const queues = new Queues({ accountId: settings.accountId, region: settings.region, baseUrl: endpoint, deduplicationWindowMs: settings.deduplicationWindowMs });
  const state: ServerState = {
    settings,
    queues,
    moveTasks: new MoveTasks({ queues, now: settings.now, intervalMs: settings.pollIntervalMs }),
    faults: settings.faults,
    faultCounts: { deliveredTwice: 0, failedSendEntries: 0, failedDeleteEntries: 0, lostResponses: 0 },
    calls: {},
    errors: {},
    closing: new AbortController(),
  };
  server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => answer(state, request, response));

  let client: SQSClient | undefined;
  return {
    endpoint,
    region: settings.region,
    accountId: settings.accountId,
    createQueue: (name, queueOptions) => createQueue((client ??= localSqsClient(endpoint, settings.region)), name, queueOptions),
    messages: (queueUrl) => queues.byUrl(queueUrl).stored(settings.now()).map(queuedMessage),
    setFaults: (next) => {
      state.faults = next;
    },
    stats: () => ({ calls: { ...state.calls }, errors: { ...state.errors }, faults: { ...state.faultCounts } }),
    async close(): Promise<void> {
      client?.destroy();
      state.closing.abort();
      state.moveTasks.close();
      for (const queue of queues.all()) queue.notify();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        // Long polls answer within a poll interval of the abort; then the remaining sockets go.
        setTimeout(() => server.closeAllConnections(), settings.pollIntervalMs * 2).unref();
      });
    },
  };
}

type Settings = ReturnType<typeof checkedSettings>;

/** The options with their defaults, checked. */
function checkedSettings(options: StartSqsOptions) {
  const settings = withDefaults(DEFAULTS, options);
  const check = settingChecks(settings);
  check.whole('pollIntervalMs', 1);
  check.whole('deduplicationWindowMs', 1);
  check.matches('accountId', ACCOUNT_ID.pattern, ACCOUNT_ID.described);
  return settings;
}

/** What the emulator's requests share: the queues, the move tasks, the faults of now, the counts. */
interface ServerState {
  readonly settings: Settings;
  readonly queues: Queues;
  readonly moveTasks: MoveTasks;
  /** Replaced by `setFaults`; a request takes those of its arrival. */
  faults: SqsFaults;
  readonly faultCounts: FaultCounts;
  readonly calls: Record<string, number>;
  readonly errors: Record<string, number>;
  /** Aborted at `close()`: waiting long polls answer. */
  readonly closing: AbortController;
}

function fail(state: ServerState, response: http.ServerResponse, error: SqsError): void {
  state.errors[error.shape] = (state.errors[error.shape] ?? 0) + 1;
  reply(response, error.status, errorBody(error), error);
}

/** Answers one request: its operation found by X-Amz-Target, run on the JSON body, its answer lost when the faults say so. */
function answer(state: ServerState, request: http.IncomingMessage, response: http.ServerResponse): void {
  const { settings, faults, faultCounts } = state;
  const target = request.headers['x-amz-target'];
  const operationName = typeof target === 'string' && target.startsWith(TARGET_PREFIX) ? target.slice(TARGET_PREFIX.length) : undefined;
  const operation = request.method === 'POST' && operationName !== undefined ? OPERATIONS[operationName] : undefined;
  if (operation === undefined) {
    request.resume();
    fail(state, response, operationName === undefined
      ? new SqsError('UnknownOperationException', 'UnknownOperationException', 'Requests take the AWS JSON 1.0 protocol: POST / with X-Amz-Target: AmazonSQS.<Operation>.')
      : unsupportedOperation(operationName));
    return;
  }
  state.calls[operationName!] = (state.calls[operationName!] ?? 0) + 1;
  const hangUp = new AbortController();
  response.on('close', () => hangUp.abort());
  const context: OperationContext = {
    queues: state.queues,
    moveTasks: state.moveTasks,
    accountId: settings.accountId,
    region: settings.region,
    now: settings.now,
    faults,
    faultCounts,
    pollIntervalMs: settings.pollIntervalMs,
    signal: AbortSignal.any([hangUp.signal, state.closing.signal]),
  };
  void (async () => {
    try {
      const body = jsonObjectBody(await readBody(request, MAX_REQUEST_BYTES, () => new SqsError('RequestEntityTooLarge', 'RequestEntityTooLarge', `The request is larger than ${MAX_REQUEST_BYTES} bytes.`, 413)), serializationError);
      const output = await operation(body, context);
      if (state.faults.loseResponse?.({ operation: operationName!, queueName: queueNameOf(body) }) === true) {
        faultCounts.lostResponses += 1;
        fail(state, response, internalError());
        return;
      }
      reply(response, 200, output);
    } catch (error) {
      const refusal = sqsErrorOf(error);
      // An error the emulator did not expect is a bug in it: say so, and answer as the service would.
      if (!(error instanceof SqsError)) console.error('local SQS: unexpected error', error);
      fail(state, response, refusal);
    }
  })();
}
