import { AWS_LIMITS } from '../aws-limits.js';
import { IDEMPOTENCY_KEY_ATTRIBUTE } from '../contract.js';
import { keyedAttributes, messageSize, stringValued } from '../producer/sqs-entry.js';
import { OutboxMessageRefusedError } from './errors.js';
import type { OutboxMessage, PreparedMessage } from './outbox-message.js';

const { attributeName: ATTRIBUTE_NAME, fifoId: GROUP_ID } = AWS_LIMITS.sqs;
// A lone surrogate has no UTF-8 (in u mode a well-formed pair is one code point, out of this range).
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** PostgreSQL text cannot hold U+0000, and a lone surrogate cannot be stored as it was given. */
function storable(text: string): boolean {
  return !text.includes('\u0000') && !LONE_SURROGATE.test(text);
}


/**
 * The refusal of a message, for its row is never written.
 *
 * @example
 * ```ts
 * throw refuse('shipped', 'it has no groupId and the target is FIFO');
 * ```
 */
export function refuse(target: string, reason: string): OutboxMessageRefusedError {
  return new OutboxMessageRefusedError(target, reason);
}

/**
 * The body as it goes out: a string as it is, anything else as JSON; refused when it is empty, not
 * JSON, or holds what PostgreSQL text cannot store, or a character outside `characters`.
 *
 * @example
 * ```ts
 * bodyText('shipped', { body: { orderId: 1 } }) // '{"orderId":1}'
 * ```
 */
export function bodyText(target: string, message: OutboxMessage, characters?: RegExp): string {
  let body: string | undefined;
  try {
    body = typeof message.body === 'string' ? message.body : JSON.stringify(message.body);
  } catch (error) {
    throw refuse(target, `its body is not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (typeof body !== 'string' || body === '') throw refuse(target, 'its body is empty');
  if (!storable(body)) throw refuse(target, 'its body holds a NUL character or a lone surrogate, which cannot be stored as text');
  if (characters !== undefined && !characters.test(body)) throw refuse(target, 'its body holds characters the target refuses');
  return body;
}

/**
 * The message's string attributes, checked: names as SQS and SNS take them, `idempotency-key` left
 * to the outbox, string values, at most `maxAttributes` with the key.
 *
 * @example
 * ```ts
 * stringAttributes('shipped', { body: 'x', attributes: { source: 'web' } }, 10) // { source: 'web' }
 * ```
 */
export function stringAttributes(target: string, message: OutboxMessage, maxAttributes: number, characters?: RegExp): Readonly<Record<string, string>> {
  const given = message.attributes ?? {};
  if (typeof given !== 'object' || given === null || Array.isArray(given)) throw refuse(target, 'its attributes are not an object of strings');
  const entries = Object.entries(given);
  if (entries.length > maxAttributes - 1) throw refuse(target, `it has ${entries.length} attributes; the target takes ${maxAttributes - 1} besides ${IDEMPOTENCY_KEY_ATTRIBUTE}`);
  for (const [name, value] of entries) {
    if (name === IDEMPOTENCY_KEY_ATTRIBUTE) throw refuse(target, `its attributes name ${name}, which the outbox sets to the row's id`);
    if (!ATTRIBUTE_NAME.test(name)) throw refuse(target, `its attribute name "${name}" is not one SQS and SNS take (letters, digits, _ - ., up to 256)`);
    if (typeof value !== 'string' || value === '') throw refuse(target, `its attribute ${name} is not a non-empty string`);
    if (!storable(value) || (characters !== undefined && !characters.test(value))) throw refuse(target, `its attribute ${name} holds characters the target refuses`);
  }
  return { ...given };
}

/**
 * The message group: required and checked on a FIFO target, refused where the target has none.
 *
 * @example
 * ```ts
 * groupIdOf('shipped', { body: 'x', groupId: 'customer-1' }, 'required') // 'customer-1'
 * ```
 */
export function groupIdOf(target: string, message: OutboxMessage, groups: 'required' | 'optional' | 'refused'): string | undefined {
  const { groupId } = message;
  if (groupId === undefined) {
    if (groups === 'required') throw refuse(target, 'it has no groupId, and the target is FIFO');
    return undefined;
  }
  if (groups === 'refused') throw refuse(target, 'it has a groupId, and the target has no message groups');
  if (typeof groupId !== 'string' || !GROUP_ID.test(groupId)) throw refuse(target, 'its groupId is not 1 to 128 letters, digits or ASCII punctuation');
  return groupId;
}

/**
 * The size check every target makes when a row is written.
 *
 * @example
 * ```ts
 * checkSize('shipped', 300_000, 262_144); // throws OutboxMessageRefusedError
 * ```
 */
export function checkSize(target: string, sizeBytes: number, maxBytes: number): number {
  if (sizeBytes > maxBytes) throw refuse(target, `it is ${sizeBytes} bytes as the target counts them, over its ${maxBytes}`);
  return sizeBytes;
}

/** What an SQS queue or SNS topic takes of a message. */
export interface AttributedLimits {
  readonly fifo: boolean;
  readonly maxAttributes: number;
  readonly maxMessageBytes: number;
  /** The characters the target takes in a body and an attribute value, when it limits them. */
  readonly characters?: RegExp;
}

/**
 * A message for a target with string message attributes (SQS, SNS): body and attributes checked, a
 * group required on FIFO, no detail-type, the size its body and attributes (the key the outbox adds
 * included) in UTF-8 within the target's limit.
 *
 * @example
 * ```ts
 * attributedMessage({ target: 'shipped', body: { orderId } }, { id, target: 'shipped' }, { fifo: false, maxAttributes: 10, maxMessageBytes: 1_048_576 })
 * ```
 */
export function attributedMessage(message: OutboxMessage, context: { readonly id: string; readonly target: string }, limits: AttributedLimits): PreparedMessage {
  const { target } = context;
  if (message.detailType !== undefined) throw refuse(target, 'it has a detailType, which only an EventBridge target takes');
  const body = bodyText(target, message, limits.characters);
  const attributes = stringAttributes(target, message, limits.maxAttributes, limits.characters);
  const groupId = groupIdOf(target, message, limits.fifo ? 'required' : 'optional');
  const sizeBytes = checkSize(target, messageSize(body, keyedAttributes(stringValued(attributes), context.id)), limits.maxMessageBytes);
  return { body, attributes, groupId, detailType: undefined, sizeBytes };
}
