import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { CallCounts, closeServer, localServiceSettings, type LocalServiceOptions, type LocalServiceStats } from '../local-service.js';
import { listenOnLoopback, readBody } from '../loopback-http.js';
import { EventBuses, type BusEvent } from './event-buses.js';
import { EventBridgeError, internal, serialization, unknownOperation } from './eventbridge-errors.js';
import type { EventBridgeFaultCounts, EventBridgeFaults } from './faults.js';
import { putEvents, type PutEventsContext } from './put-events.js';

/** Options of `startEventBridge`; `faults` as `EventBridgeFaults` says, `now` the clock of events without a Time. */
export interface StartEventBridgeOptions extends LocalServiceOptions<EventBridgeFaults> {
  /**
   * Event buses besides `default`; more can be made with CreateEventBus.
   * @default none
   */
  readonly buses?: readonly string[];
}

/** Calls answered so far. */
export type EventBridgeStats = LocalServiceStats<EventBridgeFaultCounts>;

/** A running local EventBridge. */
export interface RunningEventBridge {
  /** `http://127.0.0.1:PORT`, for `new EventBridgeClient({ endpoint })`. */
  readonly endpoint: string;
  readonly accountId: string;
  readonly region: string;
  /** The events put on a bus (`default` when none is named), as a rule's target would receive them, in order. */
  events(busName?: string): readonly BusEvent[];
  setFaults(faults: EventBridgeFaults): void;
  stats(): EventBridgeStats;
  close(): Promise<void>;
}

const TARGET_PREFIX = 'AWSEvents.';
// PutEvents takes 1 MB of entries; the JSON around them and escaping may double it.
const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

function reply(response: http.ServerResponse, status: number, body: unknown): void {
  if (response.destroyed) return;
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/x-amz-json-1.1', 'content-length': Buffer.byteLength(text), 'x-amzn-requestid': randomUUID(),
  }).end(text);
}

function parseBody(text: string): Record<string, unknown> {
  let body: unknown;
  try {
    body = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    throw serialization('The request body is not valid JSON.');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw serialization('The request body must be a JSON object.');
  return body as Record<string, unknown>;
}

/**
 * Starts a local Amazon EventBridge on 127.0.0.1 for the real `@aws-sdk/client-eventbridge` (AWS
 * JSON 1.1, `X-Amz-Target: AWSEvents.<Operation>`): PutEvents with EventBridge's checks and
 * per-entry answers (see `putEvents`), and CreateEventBus. It records every event taken, as the
 * envelope a rule's target gets, and never delivers it further. A bus that does not exist is
 * refused with ResourceNotFoundException (EventBridge has been seen to accept such events and drop
 * them, aws/aws-cli#9186; the kit's publisher takes either answer). SigV4 is not checked.
 *
 * @example
 * ```ts
 * const bus = await startEventBridge({ buses: ['orders'] });
 * const client = localEventBridgeClient(bus.endpoint);
 * await client.send(new PutEventsCommand({ Entries: [{ EventBusName: 'orders', Source: 'shop', DetailType: 'OrderShipped', Detail: '{}' }] }));
 * bus.events('orders')[0]!['detail-type'] // 'OrderShipped'
 * ```
 */
export async function startEventBridge(options: StartEventBridgeOptions = {}): Promise<RunningEventBridge> {
  const { port, accountId, region, now, ...settings } = localServiceSettings(options);
  let { faults } = settings;
  const buses = new EventBuses(accountId, region, options.buses ?? []);
  const faultCounts: EventBridgeFaultCounts = { failedEntries: 0, lostResponses: 0 };
  const counts = new CallCounts();

  const operations: Record<string, (input: Record<string, unknown>) => Record<string, unknown>> = {
    PutEvents: (input) => putEvents(input, { buses, accountId, region, now, faults, faultCounts } satisfies PutEventsContext),
    CreateEventBus: (input) => ({ EventBusArn: buses.create(String(input['Name'] ?? '')) }),
  };
  const fail = (response: http.ServerResponse, error: EventBridgeError) => {
    counts.error(error.type);
    reply(response, error.status, { __type: error.type, message: error.message });
  };

  const server = http.createServer();
  const endpoint = await listenOnLoopback(server, port);
  server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => {
    const target = request.headers['x-amz-target'];
    const name = typeof target === 'string' && target.startsWith(TARGET_PREFIX) ? target.slice(TARGET_PREFIX.length) : undefined;
    const operation = request.method === 'POST' && name !== undefined ? operations[name] : undefined;
    if (operation === undefined) {
      request.resume();
      fail(response, unknownOperation(name ?? String(target)));
      return;
    }
    counts.call(name!);
    void (async () => {
      try {
        const output = operation(parseBody(await readBody(request, MAX_REQUEST_BYTES, () => serialization(`The request is larger than ${MAX_REQUEST_BYTES} bytes.`))));
        if (faults.loseResponse?.({ operation: name! }) === true) {
          faultCounts.lostResponses += 1;
          fail(response, internal());
          return;
        }
        reply(response, 200, output);
      } catch (error) {
        if (!(error instanceof EventBridgeError)) console.error('local EventBridge: unexpected error', error);
        fail(response, error instanceof EventBridgeError ? error : internal());
      }
    })();
  });

  return {
    endpoint,
    accountId,
    region,
    events: (busName = 'default') => buses.events(busName),
    setFaults: (next) => {
      faults = next;
    },
    stats: () => counts.stats(faultCounts),
    close: () => closeServer(server),
  };
}
