import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { CallCounts, closeServer, localServiceSettings, type LocalServiceOptions, type LocalServiceStats } from '../local-service.js';
import { listenOnLoopback, readBody } from '../loopback-http.js';
import type { SnsFaultCounts, SnsFaults } from './faults.js';
import { publish, publishBatch, type PublishContext } from './publish-operations.js';
import { queryInput, textOf, type QueryInput } from './query-input.js';
import { localSqsClient } from '../sqs/client.js';
import { internalError, invalidAction, SnsError } from './sns-errors.js';
import { deliverToQueue } from './sqs-delivery.js';
import { createTopic, deleteTopic, subscribe } from './topic-operations.js';
import { Topics, type PublishedMessage } from './topics.js';
import { xmlElements, type XmlValue } from './xml.js';

/** Options of `startSns`; `faults` as `SnsFaults` says, `now` the clock of the FIFO deduplication window. */
export interface StartSnsOptions extends LocalServiceOptions<SnsFaults> {
  /**
   * The local SQS (`startSqs()`'s endpoint) that SQS subscriptions deliver to.
   * @default none: Subscribe is refused
   */
  readonly sqsEndpoint?: string;
}

/** Calls answered so far. */
export type SnsStats = LocalServiceStats<SnsFaultCounts>;

/** A running local SNS. */
export interface RunningSns {
  /** `http://127.0.0.1:PORT`, for `new SNSClient({ endpoint })`. */
  readonly endpoint: string;
  readonly accountId: string;
  readonly region: string;
  /** What a topic took, in order (a FIFO topic's duplicates left out); empty for an unknown topic. */
  messages(topicArn: string): readonly PublishedMessage[];
  setFaults(faults: SnsFaults): void;
  stats(): SnsStats;
  close(): Promise<void>;
}

const NAMESPACE = 'http://sns.amazonaws.com/doc/2010-03-31/';
// A batch holds 1 MiB of messages at most; form encoding may triple it.
const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

function send(response: http.ServerResponse, status: number, xml: string): void {
  if (response.destroyed) return;
  response.writeHead(status, { 'content-type': 'text/xml', 'content-length': Buffer.byteLength(xml), 'x-amzn-requestid': randomUUID() }).end(xml);
}

function answer(action: string, result: XmlValue): string {
  return `<?xml version="1.0"?><${action}Response xmlns="${NAMESPACE}">${xmlElements(result)}`
    + `<ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></${action}Response>`;
}

function errorAnswer(error: SnsError): string {
  return `<?xml version="1.0"?><ErrorResponse xmlns="${NAMESPACE}"><Error><Type>${error.fault}</Type>`
    + `${xmlElements({ Code: error.code, Message: error.message })}</Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`;
}

/**
 * Starts a local Amazon SNS on 127.0.0.1 for the real `@aws-sdk/client-sns` (the AWS Query
 * protocol: form-encoded requests, XML answers): CreateTopic (standard and FIFO, with
 * ContentBasedDeduplication and MaximumMessageSize), DeleteTopic, Publish and PublishBatch with
 * SNS's checks and per-entry answers, FIFO message groups, deduplication ids and sequence numbers,
 * and the 5-minute deduplication window. It records what each topic took; started with
 * `sqsEndpoint` (the local SQS), it also takes Subscribe of queues there and delivers to them as SNS
 * does (a notification around the message, or with RawMessageDelivery the message and its attributes
 * as message attributes), before Publish answers. SigV4 is not checked.
 *
 * @example
 * ```ts
 * const sns = await startSns();
 * const client = localSnsClient(sns.endpoint);
 * const { TopicArn } = await client.send(new CreateTopicCommand({ Name: 'notices' }));
 * await client.send(new PublishCommand({ TopicArn, Message: 'hi' }));
 * sns.messages(TopicArn!)[0]!.message // 'hi'
 * ```
 */
export async function startSns(options: StartSnsOptions = {}): Promise<RunningSns> {
  const { port, accountId, region, now, ...settings } = localServiceSettings(options);
  const state: SnsState = { faults: settings.faults, faultCounts: { failedEntries: 0, lostResponses: 0 }, counts: new CallCounts() };
  const topics = new Topics(accountId, region);
  const { sqsEndpoint } = options;
  let sqs: SQSClient | undefined;
  // Deliveries are made before Publish answers, so a test finds the message in the queue once it returns.
  const context = (deliveries: Promise<void>[]): PublishContext => ({
    topics, now, faults: state.faults, faultCounts: state.faultCounts,
    deliver: (topic, message) => {
      if (sqsEndpoint === undefined) return;
      for (const subscription of topic.subscribers()) {
        deliveries.push(deliverToQueue((sqs ??= localSqsClient(sqsEndpoint, region)), sqsEndpoint, message, topic.arn, subscription, now())
          .catch((error: unknown) => console.error(`local SNS: delivery to ${subscription.queueArn} failed`, error)));
      }
    },
  });

  const actions: Actions = {
    CreateTopic: (input) => createTopic(input, topics),
    DeleteTopic: (input) => deleteTopic(input, topics),
    Subscribe: (input) => subscribe(input, topics, sqsEndpoint !== undefined),
    Publish: (input, deliveries) => publish(input, context(deliveries)),
    PublishBatch: (input, deliveries) => publishBatch(input, context(deliveries)),
  };
  const server = http.createServer();
  const endpoint = await listenOnLoopback(server, port);
  server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => answerRequest(state, actions, request, response));

  return {
    endpoint,
    accountId,
    region,
    messages: (topicArn) => topics.find(topicArn)?.messages() ?? [],
    setFaults: (next) => {
      state.faults = next;
    },
    stats: () => state.counts.stats(state.faultCounts),
    close: () => {
      sqs?.destroy();
      return closeServer(server);
    },
  };
}

/** What the emulator's requests share: the faults of now and the counts. */
interface SnsState {
  /** Replaced by `setFaults`; a request takes those of its arrival. */
  faults: SnsFaults;
  readonly faultCounts: SnsFaultCounts;
  readonly counts: CallCounts;
}

/** The actions by name, each given the request's input and where to put the deliveries it starts. */
type Actions = Record<string, (input: QueryInput, deliveries: Promise<void>[]) => XmlValue>;

/** Answers one request: its action run on the form-encoded input, its deliveries awaited, its answer lost when the faults say so. */
function answerRequest(state: SnsState, actions: Actions, request: http.IncomingMessage, response: http.ServerResponse): void {
  const fail = (error: SnsError) => {
    state.counts.error(error.code);
    send(response, error.status, errorAnswer(error));
  };
  void (async () => {
    try {
      if (request.method !== 'POST') throw invalidAction(String(request.method));
      const input = queryInput(await readBody(request, MAX_REQUEST_BYTES, () => new SnsError('RequestEntityTooLarge', `The request is larger than ${MAX_REQUEST_BYTES} bytes.`, 413)));
      const action = textOf(input, 'Action') ?? '';
      const run = actions[action];
      if (run === undefined) throw invalidAction(action);
      state.counts.call(action);
      const deliveries: Promise<void>[] = [];
      const result = run(input, deliveries);
      await Promise.all(deliveries);
      if (state.faults.loseResponse?.({ operation: action }) === true) {
        state.faultCounts.lostResponses += 1;
        throw internalError();
      }
      send(response, 200, answer(action, result));
    } catch (error) {
      if (!(error instanceof SnsError)) console.error('local SNS: unexpected error', error);
      fail(error instanceof SnsError ? error : internalError());
    }
  })();
}
