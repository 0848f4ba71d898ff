import { AWS_LIMITS } from '../../functions/inbox/internal.js';
import { md5OfAttributes, md5OfBody, type StoredAttribute } from './md5.js';
import type { Input, Operation, OperationContext } from './operation-context.js';
import { queueOf } from './operation-context.js';
import { checkVisibilityTimeout, type Delivery } from './queue.js';
import { invalidAttributeName, invalidParameter } from './sqs-errors.js';

const SYSTEM_ATTRIBUTE_NAMES = new Set([
  'All', 'SenderId', 'SentTimestamp', 'ApproximateReceiveCount', 'ApproximateFirstReceiveTimestamp', 'SequenceNumber',
  'MessageDeduplicationId', 'MessageGroupId', 'AWSTraceHeader', 'DeadLetterQueueSourceArn',
]);

function stringList(input: Input, name: string): string[] {
  const value = input[name];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) throw invalidParameter(name, JSON.stringify(value), `${name} must be a list of strings.`);
  return value as string[];
}

function whole(input: Input, name: string, min: number, max: number, fallback: number): number {
  const value = input[name];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalidParameter(name, value, name === 'MaxNumberOfMessages' ? `Must be between ${min} and ${max}, if provided.` : `Must be >= ${min} and <= ${max}, if provided.`);
  }
  return value;
}

// Which system attributes a receive asked for, from the current MessageSystemAttributeNames and the older AttributeNames.
function systemAttributeFilter(input: Input): (name: string) => boolean {
  const names = [...stringList(input, 'MessageSystemAttributeNames'), ...stringList(input, 'AttributeNames')];
  for (const name of names) if (!SYSTEM_ATTRIBUTE_NAMES.has(name)) throw invalidAttributeName(name);
  return names.includes('All') ? () => true : (name) => names.includes(name);
}

// Which message attributes a receive asked for: All or .*, exact names, or prefixes written `prefix.*`.
function messageAttributeFilter(input: Input): (name: string) => boolean {
  const names = stringList(input, 'MessageAttributeNames');
  if (names.includes('All') || names.includes('.*')) return () => true;
  const prefixes = names.filter((name) => name.endsWith('.*')).map((name) => name.slice(0, -1));
  return (name) => names.includes(name) || prefixes.some((prefix) => name.startsWith(prefix));
}

function renderAttribute(attribute: StoredAttribute): Record<string, unknown> {
  return attribute.BinaryValue !== undefined
    ? { DataType: attribute.DataType, BinaryValue: attribute.BinaryValue.toString('base64') }
    : { DataType: attribute.DataType, StringValue: attribute.StringValue };
}

function render(delivery: Delivery, wantsSystem: (name: string) => boolean, wantsUser: (name: string) => boolean, context: OperationContext): Record<string, unknown> {
  const { message } = delivery;
  const system: Record<string, string | undefined> = {
    SenderId: context.accountId,
    SentTimestamp: String(message.sentTimestamp),
    ApproximateReceiveCount: String(message.receiveCount),
    ApproximateFirstReceiveTimestamp: String(message.firstReceiveTimestamp),
    SequenceNumber: message.sequenceNumber,
    MessageDeduplicationId: message.deduplicationId,
    MessageGroupId: message.groupId,
    AWSTraceHeader: message.systemAttributes['AWSTraceHeader']?.StringValue,
    DeadLetterQueueSourceArn: message.deadLetterQueueSourceArn,
  };
  const attributes = Object.fromEntries(Object.entries(system).filter(([name, value]) => value !== undefined && wantsSystem(name)));
  const chosen = Object.fromEntries(Object.entries(message.attributes).filter(([name]) => wantsUser(name)));
  const output: Record<string, unknown> = {
    MessageId: message.id,
    ReceiptHandle: delivery.receiptHandle,
    MD5OfBody: md5OfBody(message.body),
    Body: message.body,
  };
  if (Object.keys(attributes).length > 0) output['Attributes'] = attributes;
  const attributesMd5 = md5OfAttributes(chosen);
  if (attributesMd5 !== undefined) {
    output['MD5OfMessageAttributes'] = attributesMd5;
    output['MessageAttributes'] = Object.fromEntries(Object.entries(chosen).map(([name, attribute]) => [name, renderAttribute(attribute)]));
  }
  return output;
}

/**
 * ReceiveMessage: up to MaxNumberOfMessages (1 to 10), invisible for the queue's or the request's
 * VisibilityTimeout, with the system and message attributes asked for. With WaitTimeSeconds (or
 * the queue's ReceiveMessageWaitTimeSeconds) it long-polls: it answers as soon as a message can be
 * handed out, or empty when the wait is over. The wait is real time; visibility and delays follow
 * the emulator's clock, looked at again every `pollIntervalMs`.
 */
export const receiveMessage: Operation = async (input, context) => {
  const queue = queueOf(input, context);
  const max = whole(input, 'MaxNumberOfMessages', 1, AWS_LIMITS.sqs.batchEntries, 1);
  const waitSeconds = whole(input, 'WaitTimeSeconds', AWS_LIMITS.sqs.waitTimeSeconds.min, AWS_LIMITS.sqs.waitTimeSeconds.max, queue.settings.receiveMessageWaitTimeSeconds);
  const visibilityTimeout = input['VisibilityTimeout'] === undefined || input['VisibilityTimeout'] === null
    ? queue.settings.visibilityTimeout
    : checkVisibilityTimeout(input['VisibilityTimeout']);
  const wantsSystem = systemAttributeFilter(input);
  const wantsUser = messageAttributeFilter(input);
  const deadline = performance.now() + waitSeconds * 1000;
  for (;;) {
    if (context.signal.aborted) return {};
    const deliveries = queue.receive({ max, visibilityTimeout, now: context.now(), faults: context.faults, faultCounts: context.faultCounts });
    const left = deadline - performance.now();
    // SQS leaves Messages out of an empty answer.
    if (deliveries.length > 0) return { Messages: deliveries.map((delivery) => render(delivery, wantsSystem, wantsUser, context)) };
    if (left <= 0) return {};
    await queue.changed(Math.min(context.pollIntervalMs, left));
  }
};
