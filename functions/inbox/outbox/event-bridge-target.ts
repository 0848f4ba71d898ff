import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry, type PutEventsResultEntry } from '@aws-sdk/client-eventbridge';
import { AWS_LIMITS } from '../aws-limits.js';
import { InboxConfigError } from '../errors.js';
import { IDEMPOTENCY_KEY_ATTRIBUTE } from '../contract.js';
import { answeredCall } from './aws-answers.js';
import { bodyText, checkSize, groupIdOf, refuse } from './message-checks.js';
import type { OutboxEntry, OutboxMessage, PreparedMessage } from './outbox-message.js';
import type { PrepareContext, Publisher, PublishAnswer } from './publisher.js';
import { parseTraceparent, toXrayHeader } from '../trace/trace-parent.js';

/**
 * A PutEvents entry's size as EventBridge computes it (no Time, no Resources: the outbox sends
 * neither), to be held to `AWS_LIMITS.eventBridge.batchBytes`.
 */
function eventBridgeEntrySize(entry: { readonly source: string; readonly detailType: string; readonly detail: string }): number {
  return Buffer.byteLength(entry.source, 'utf8') + Buffer.byteLength(entry.detailType, 'utf8') + Buffer.byteLength(entry.detail, 'utf8');
}

/** Options of `eventBridgeTarget`. */
export interface EventBridgeTargetOptions {
  /** The event bus's name or ARN. */
  readonly eventBusName: string;
  /**
   * The events' source.
   * @default the name of the consumer that wrote the row
   */
  readonly source?: string;
  /**
   * The events' detail-type when a message gives none.
   * @default the target's name
   */
  readonly detailType?: string;
  /**
   * The client to put events with.
   * @default new EventBridgeClient({}), made at the first send
   */
  readonly client?: EventBridgeClient;
}

const BUS = /^(arn:aws[\w-]*:events:[a-z0-9-]+:\d{12}:event-bus\/)?[.\-_A-Za-z0-9]{1,256}$/;
// Entry codes EventBridge documents as retryable, and those a change of rights cures.
const RETRYABLE_CODES: ReadonlySet<string> = new Set(['InternalFailure', 'ThrottlingException', 'InternalException']);
const CONFIGURATION_CODES = /AccessDenied|NotAuthorized/;

/**
 * The detail with the row's id as its first member, `"idempotency-key"`, the rest of the text as it
 * was: the key rides in the detail because EventBridge gives each event an id of its own and has
 * no deduplication, and the detail is what every rule target receives (whole, in the event, or
 * alone through an input path of `$.detail`).
 */
function keyedDetail(detail: string, id: string): string {
  const open = detail.indexOf('{');
  const rest = detail.slice(open + 1);
  const member = `${JSON.stringify(IDEMPOTENCY_KEY_ATTRIBUTE)}:${JSON.stringify(id)}`;
  return `${detail.slice(0, open + 1)}${member}${rest.trimStart().startsWith('}') ? '' : ','}${rest}`;
}

function answerOf(result: PutEventsResultEntry | undefined): PublishAnswer {
  if (result === undefined) return { kind: 'retry', reason: 'not acknowledged in the PutEvents response' };
  if (result.ErrorCode === undefined && result.EventId !== undefined) return { kind: 'sent' };
  const code = result.ErrorCode ?? 'InternalFailure';
  const reason = `${code}: ${result.ErrorMessage ?? ''}`;
  return RETRYABLE_CODES.has(code) || CONFIGURATION_CODES.test(code) ? { kind: 'retry', reason } : { kind: 'refused', reason };
}

/**
 * An EventBridge event bus as an outbox target: rows go by `PutEvents`, 10 at most and under the
 * 1 MB a call EventBridge counts. The message's body is the event's detail, a JSON object, and the
 * row's id is put into it as its `"idempotency-key"` member (an SQS queue that a rule targets gets
 * the whole event, and the kit's default key reads it there). Entries failed with a retryable code
 * go again; the others, and every row when the bus does not exist, are marked failed.
 *
 * @example
 * ```ts
 * const targets = { events: eventBridgeTarget({ eventBusName: 'orders', source: 'com.example.orders' }) };
 * // handle: await outbox.send({ target: 'events', detailType: 'OrderShipped', body: { orderId } });
 * ```
 */
export function eventBridgeTarget(options: EventBridgeTargetOptions): Publisher {
  checkEventBridgeOptions(options);
  let client = options.client;
  const sourceOf = (consumer: string) => options.source ?? consumer;
  const toEntry = (entry: OutboxEntry): PutEventsRequestEntry => {
    // EventBridge carries X-Ray's header on to its targets (an SQS target's AWSTraceHeader).
    const traceHeader = xrayHeaderOf(entry.traceparent);
    return {
      EventBusName: options.eventBusName,
      Source: sourceOf(entry.consumer),
      DetailType: entry.detailType ?? options.detailType ?? entry.target,
      Detail: entry.body,
      ...(traceHeader !== undefined ? { TraceHeader: traceHeader } : {}),
    };
  };

  return {
    fifo: false,
    maxBatchEntries: AWS_LIMITS.eventBridge.batchEntries,
    maxMessageBytes: AWS_LIMITS.eventBridge.batchBytes,
    maxBatchBytes: AWS_LIMITS.eventBridge.batchBytes,
    prepare: (message, context) => preparedEvent(message, context, { detailType: options.detailType, source: sourceOf(context.consumer) }),
    publish(entries, { signal }) {
      client ??= new EventBridgeClient({});
      const events = client;
      return answeredCall(entries, async (batch) => {
        const response = await events.send(new PutEventsCommand({ Entries: batch.map(toEntry) }), { abortSignal: signal });
        return batch.map((_, i) => answerOf(response.Entries?.[i]));
      }, (error) => (error as Error)?.name === 'ResourceNotFoundException');
    },
  };
}

function checkEventBridgeOptions(options: EventBridgeTargetOptions): void {
  if (typeof options?.eventBusName !== 'string' || !BUS.test(options.eventBusName)) {
    throw new InboxConfigError(`eventBridgeTarget needs the event bus's name or ARN, but "${String(options?.eventBusName)}" was given.`);
  }
  if (options.source !== undefined && (typeof options.source !== 'string' || options.source === '' || options.source.length > 256)) {
    throw new InboxConfigError(`eventBridgeTarget source must be 1 to 256 characters, but "${String(options.source)}" was given.`);
  }
  if (options.detailType !== undefined && (typeof options.detailType !== 'string' || options.detailType === '' || options.detailType.length > AWS_LIMITS.eventBridge.detailTypeLength)) {
    throw new InboxConfigError(`eventBridgeTarget detailType must be 1 to ${AWS_LIMITS.eventBridge.detailTypeLength} characters, but "${String(options.detailType)}" was given.`);
  }
}

function xrayHeaderOf(traceparent: string | undefined): string | undefined {
  const parent = parseTraceparent(traceparent);
  return parent && toXrayHeader(parent);
}

/** A message checked as an event: its detail a JSON object with the row's id as its key, its detail type, its size as EventBridge counts it. */
function preparedEvent(message: OutboxMessage, { id, target }: PrepareContext, event: { readonly detailType: string | undefined; readonly source: string }): PreparedMessage {
  if (message.attributes !== undefined && Object.keys(message.attributes).length > 0) throw refuse(target, 'it has attributes, and an EventBridge event has none: put them in the detail');
  groupIdOf(target, message, 'refused');
  const detailType = message.detailType ?? event.detailType ?? target;
  if (typeof detailType !== 'string' || detailType === '' || detailType.length > AWS_LIMITS.eventBridge.detailTypeLength) {
    throw refuse(target, `its detailType is not 1 to ${AWS_LIMITS.eventBridge.detailTypeLength} characters`);
  }
  const text = bodyText(target, message);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw refuse(target, 'its body is not JSON, and an event\'s detail is a JSON object');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw refuse(target, 'its body is not a JSON object, and an event\'s detail is one');
  if (Object.hasOwn(parsed, IDEMPOTENCY_KEY_ATTRIBUTE)) throw refuse(target, `its detail has a member ${IDEMPOTENCY_KEY_ATTRIBUTE}, which the outbox sets to the row's id`);
  const body = keyedDetail(text, id);
  const sizeBytes = checkSize(target, eventBridgeEntrySize({ source: event.source, detailType, detail: body }), AWS_LIMITS.eventBridge.batchBytes);
  return { body, attributes: {}, groupId: undefined, detailType, sizeBytes };
}
