import { IDEMPOTENCY_KEY_ATTRIBUTE } from '../contract.js';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** An EventBridge event as a rule delivers it to a queue: its envelope, the detail an object. */
function isEventBridgeEvent(value: Json): boolean {
  return value['version'] === '0' && typeof value['id'] === 'string' && typeof value['detail-type'] === 'string'
    && typeof value['source'] === 'string' && isObject(value['detail']);
}

/** An SNS notification as a subscription without raw message delivery puts it in a queue: the Message a string. */
function isSnsNotification(value: Json): boolean {
  return value['Type'] === 'Notification' && typeof value['MessageId'] === 'string' && typeof value['TopicArn'] === 'string'
    && typeof value['Message'] === 'string';
}

/** An envelope the body is, what it wraps, and the key it carries if any. */
export interface Envelope {
  readonly kind: 'eventbridge' | 'sns';
  /** The event's detail (as JSON) or the notification's Message: a resend gets a new envelope around it. */
  readonly payload: string;
  /** The event's detail as an object, or the notification's Message parsed as JSON (a throw if it is not JSON). */
  readonly message: () => unknown;
  readonly key?: string;
}

/**
 * The EventBridge event (a rule targeting the queue) or SNS notification (a subscription without
 * raw message delivery) that an SQS body is, or `undefined`. The one detector that the default
 * key, the payload hash and the default parse all read, so they agree on what is an envelope.
 *
 * @example
 * ```ts
 * envelopeIn('{"Type":"Notification","MessageId":"n-1","TopicArn":"arn:aws:sns:...","Message":"{\\"orderId\\":1}"}')?.message()
 * // { orderId: 1 }
 * ```
 */
export function envelopeIn(body: string): Envelope | undefined {
  // Most bodies are not envelopes: they are not parsed for nothing.
  if (!body.includes('"detail-type"') && !body.includes('"Notification"')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!isObject(value)) return undefined;
  const name = IDEMPOTENCY_KEY_ATTRIBUTE;
  if (isEventBridgeEvent(value)) {
    const detail = value['detail'] as Json;
    const key = detail[name];
    return { kind: 'eventbridge', payload: JSON.stringify(detail), message: () => detail, ...(typeof key === 'string' ? { key } : {}) };
  }
  if (isSnsNotification(value)) {
    const message = value['Message'] as string;
    const attribute = isObject(value['MessageAttributes']) ? value['MessageAttributes'][name] : undefined;
    const key = isObject(attribute) && attribute['Type'] === 'String' ? attribute['Value'] : undefined;
    return { kind: 'sns', payload: message, message: () => JSON.parse(message) as unknown, ...(typeof key === 'string' ? { key } : {}) };
  }
  return undefined;
}

/** The key an envelope carries, and what it wraps: the part of the body that is the same on every send. */
export interface Enveloped {
  readonly key: string;
  /** The event's detail (as JSON) or the notification's Message: a resend gets a new envelope around it. */
  readonly payload: string;
}

/**
 * The idempotency key an envelope in the body carries, when the body is one: an EventBridge event
 * whose detail has an `"idempotency-key"` string member, as the outbox's EventBridge target puts it
 * there; or an SNS notification with an `idempotency-key` message attribute. Such a key is part of
 * the body, so it survives a redrive, and a chain EventBridge (or SNS) -> SQS -> inbox deduplicates
 * by default. With it comes the payload the envelope wraps: EventBridge gives each put a new event id
 * and time, SNS each publish a new MessageId and signature, so a copy sent again differs only in its
 * envelope, and its payload hash must be taken of what it wraps, or it would look like a collision.
 *
 * @example
 * ```ts
 * envelopeOf('{"version":"0","id":"e-1","detail-type":"OrderShipped","source":"shop","detail":{"idempotency-key":"0190..."}}')
 * // { key: '0190...', payload: '{"idempotency-key":"0190..."}' }
 * ```
 */
export function envelopeOf(body: string): Enveloped | undefined {
  const envelope = envelopeIn(body);
  return envelope?.key !== undefined ? { key: envelope.key, payload: envelope.payload } : undefined;
}
