import { createHash } from 'node:crypto';
import { AWS_LIMITS, messageSize } from '../../functions/inbox/internal.js';
import type { StoredAttribute } from './md5.js';
import { invalidMessageContents, invalidParameter, invalidParameterValue, missingParameter } from './sqs-errors.js';

/** One message to send, as SendMessage or an entry of SendMessageBatch carries it (JSON protocol). */
export interface SendInput {
  readonly MessageBody?: unknown;
  readonly DelaySeconds?: unknown;
  readonly MessageAttributes?: unknown;
  readonly MessageSystemAttributes?: unknown;
  readonly MessageDeduplicationId?: unknown;
  readonly MessageGroupId?: unknown;
}

/** A message checked against the queue's rules, ready to be stored. */
export interface CheckedMessage {
  readonly body: string;
  readonly attributes: Readonly<Record<string, StoredAttribute>>;
  readonly systemAttributes: Readonly<Record<string, StoredAttribute>>;
  readonly delaySeconds: number | undefined;
  readonly groupId: string | undefined;
  /** The deduplication id given, or the body's sha-256 on a content-based FIFO queue. */
  readonly deduplicationId: string | undefined;
  /** Body and attributes, as SQS counts them against the size limit. */
  readonly size: number;
}

/** What the queue decides about a message. */
export interface QueueRules {
  readonly fifo: boolean;
  readonly contentBasedDeduplication: boolean;
  readonly maximumMessageSize: number;
}

const MAX_ATTRIBUTES = AWS_LIMITS.sqs.attributes;
const DELAY_SECONDS = AWS_LIMITS.sqs.delaySeconds;
const ATTRIBUTE_NAME = /^[A-Za-z0-9_.-]{1,256}$/;
const DATA_TYPE = /^(String|Number|Binary)(\.[A-Za-z0-9_.-]+)?$/;
// A Number attribute: SQS takes up to 38 significant digits in a decimal or exponent notation.
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const { fifoId: FIFO_ID, characters: VALID_TEXT } = AWS_LIMITS.sqs;
const SYSTEM_ATTRIBUTES = new Set(['AWSTraceHeader']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkAttributeName(name: string, kind: 'user' | 'system'): void {
  const lower = name.toLowerCase();
  if (!ATTRIBUTE_NAME.test(name) || name.startsWith('.') || name.endsWith('.') || name.includes('..')
    || (kind === 'user' && (lower.startsWith('aws.') || lower.startsWith('amazon.')))) {
    throw invalidParameterValue(`Message (${kind}) attribute name '${name}' is invalid. Names are 1 to 256 of A-Z, a-z, 0-9, underscore, hyphen and period, without a leading, trailing or doubled period, and not starting with AWS. or Amazon.`);
  }
}

function checkAttribute(name: string, raw: unknown, kind: 'user' | 'system'): StoredAttribute {
  checkAttributeName(name, kind);
  if (!isRecord(raw)) throw invalidParameterValue(`Message (${kind}) attribute '${name}' must be an object with a DataType.`);
  const dataType = raw['DataType'];
  if (typeof dataType !== 'string' || dataType === '') throw invalidParameterValue(`The message (${kind}) attribute '${name}' must contain a non-empty attribute type.`);
  if (dataType.length > 256 || !DATA_TYPE.test(dataType)) {
    throw invalidParameterValue(`The type of message (${kind}) attribute '${name}' is invalid. You must use only the following supported type prefixes: Binary, Number, String.`);
  }
  if (raw['StringListValues'] !== undefined || raw['BinaryListValues'] !== undefined) {
    throw invalidParameterValue(`Message (${kind}) attribute '${name}': StringListValues and BinaryListValues are reserved by SQS and not supported.`);
  }
  const base = dataType.split('.')[0];
  if (base === 'Binary') {
    const value = raw['BinaryValue'];
    if (typeof value !== 'string' || value === '') throw invalidParameterValue(`Message (${kind}) attribute '${name}' must contain a non-empty value of type 'Binary'.`);
    return { DataType: dataType, BinaryValue: Buffer.from(value, 'base64') };
  }
  const value = raw['StringValue'];
  if (typeof value !== 'string' || value === '') throw invalidParameterValue(`Message (${kind}) attribute '${name}' must contain a non-empty value of type '${base}'.`);
  if (!VALID_TEXT.test(value)) throw invalidParameterValue(`Message (${kind}) attribute '${name}' contains characters outside the allowed set.`);
  if (base === 'Number' && !NUMBER.test(value)) throw invalidParameterValue(`Can't cast the value of message (${kind}) attribute '${name}' to a number.`);
  return { DataType: dataType, StringValue: value };
}

function checkAttributes(raw: unknown, kind: 'user' | 'system'): Record<string, StoredAttribute> {
  if (raw === undefined || raw === null) return {};
  if (!isRecord(raw)) throw invalidParameterValue(`Message${kind === 'system' ? 'System' : ''}Attributes must be a map of name to attribute value.`);
  const names = Object.keys(raw);
  if (names.length > MAX_ATTRIBUTES) throw invalidParameterValue(`Number of message attributes [${names.length}] exceeds the allowed maximum [${MAX_ATTRIBUTES}].`);
  const checked: Record<string, StoredAttribute> = {};
  for (const name of names) {
    if (kind === 'system' && !SYSTEM_ATTRIBUTES.has(name)) throw invalidParameterValue(`Message system attribute name '${name}' is invalid.`);
    checked[name] = checkAttribute(name, raw[name], kind);
  }
  return checked;
}

function checkFifoId(name: string, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !FIFO_ID.test(value)) {
    throw invalidParameter(name, value, `${name} can only include alphanumeric and punctuation characters. 1 to 128 in length.`);
  }
  return value;
}

/**
 * Checks one message against SQS's rules and the queue's: a non-empty body of allowed characters,
 * at most 10 well-formed attributes, body plus attributes within the queue's MaximumMessageSize,
 * DelaySeconds 0 to 900 (standard queues only), and on FIFO a MessageGroupId and either a
 * MessageDeduplicationId or content-based deduplication. Throws the SqsError SQS answers.
 *
 * @example
 * ```ts
 * checkMessage({ MessageBody: 'hi', MessageGroupId: 'g' }, { fifo: true, contentBasedDeduplication: true, maximumMessageSize: 1048576 }).deduplicationId // sha-256 of 'hi'
 * ```
 */
export function checkMessage(input: SendInput, rules: QueueRules): CheckedMessage {
  const body = input.MessageBody;
  if (body === undefined || body === null || body === '') throw missingParameter('MessageBody');
  if (typeof body !== 'string') throw invalidParameter('MessageBody', typeof body, 'MessageBody must be a string.');
  if (!VALID_TEXT.test(body)) throw invalidMessageContents();
  const attributes = checkAttributes(input.MessageAttributes, 'user');
  const systemAttributes = checkAttributes(input.MessageSystemAttributes, 'system');
  const size = messageSize(body, attributes);
  if (size > rules.maximumMessageSize) {
    throw invalidParameterValue(`One or more parameters are invalid. Reason: Message must be shorter than ${rules.maximumMessageSize} bytes.`);
  }

  let delaySeconds: number | undefined;
  if (input.DelaySeconds !== undefined && input.DelaySeconds !== null) {
    const value = input.DelaySeconds;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < DELAY_SECONDS.min || value > DELAY_SECONDS.max) {
      throw invalidParameter('DelaySeconds', value, `Must be >= ${DELAY_SECONDS.min} and <= ${DELAY_SECONDS.max}, if provided.`);
    }
    if (rules.fifo) throw invalidParameter('DelaySeconds', value, 'The request include parameter that is not valid for this queue type.');
    delaySeconds = value;
  }

  const groupId = checkFifoId('MessageGroupId', input.MessageGroupId);
  let deduplicationId = checkFifoId('MessageDeduplicationId', input.MessageDeduplicationId);
  if (rules.fifo) {
    if (groupId === undefined) throw missingParameter('MessageGroupId');
    if (deduplicationId === undefined) {
      if (!rules.contentBasedDeduplication) {
        throw invalidParameterValue('The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly');
      }
      deduplicationId = createHash('sha256').update(body, 'utf8').digest('hex');
    }
  } else if (deduplicationId !== undefined) {
    throw invalidParameter('MessageDeduplicationId', deduplicationId, 'The request include parameter that is not valid for this queue type.');
  }
  return { body, attributes, systemAttributes, delaySeconds, groupId, deduplicationId, size };
}
