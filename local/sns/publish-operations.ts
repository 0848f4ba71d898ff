import { AWS_LIMITS } from '../../functions/inbox/internal.js';
import { listOf, textOf, type QueryInput } from './query-input.js';
import {
  batchEntryIdsNotDistinct, batchRequestTooLong, emptyBatch, internalError, invalidBatchEntryId, invalidParameter,
  SnsError, tooManyEntries,
} from './sns-errors.js';
import type { SnsFaultCounts, SnsFaults } from './faults.js';
import type { MessageToPublish, PublishedMessage, Topic, Topics } from './topics.js';
import type { XmlValue } from './xml.js';

/** What a publish operation is handed besides its input. */
export interface PublishContext {
  readonly topics: Topics;
  readonly now: () => number;
  readonly faults: SnsFaults;
  readonly faultCounts: SnsFaultCounts;
  /** Hands a message the topic took to its subscribers. */
  readonly deliver: (topic: Topic, message: PublishedMessage) => void;
}

const MAX_ENTRIES = AWS_LIMITS.sns.batchEntries;
const ENTRY_ID = /^[A-Za-z0-9_-]{1,80}$/;
const { attributeName: ATTRIBUTE_NAME, fifoId: GROUP_OR_DEDUPLICATION_ID } = AWS_LIMITS.sqs;

function attributesOf(input: QueryInput): MessageToPublish['attributes'] {
  const attributes: Record<string, { dataType: string; value: string }> = {};
  for (const entry of listOf(input, 'MessageAttributes')) {
    const name = textOf(entry, 'Name') ?? '';
    const value = typeof entry['Value'] === 'object' && !Array.isArray(entry['Value']) ? entry['Value'] : {};
    const dataType = textOf(value, 'DataType') ?? '';
    if (!ATTRIBUTE_NAME.test(name)) throw invalidParameter(`MessageAttributes Reason: The message attribute name '${name}' is invalid`);
    if (!/^(String|Number|Binary)(\..+)?$|^String\.Array$/.test(dataType)) throw invalidParameter(`MessageAttributes Reason: The message attribute '${name}' has an invalid message attribute type`);
    const text = dataType.startsWith('Binary') ? textOf(value, 'BinaryValue') : textOf(value, 'StringValue');
    if (text === undefined || text === '') {
      throw invalidParameter(`MessageAttributes Reason: The message attribute '${name}' must contain non-empty message attribute value for message attribute type '${dataType}'`);
    }
    attributes[name] = { dataType, value: text };
  }
  return attributes;
}

/** The bytes SNS counts for a message: its body, and each attribute's name, type and value. */
function sizeOf(message: MessageToPublish): number {
  let size = Buffer.byteLength(message.message, 'utf8');
  for (const [name, { dataType, value }] of Object.entries(message.attributes)) {
    size += Buffer.byteLength(name, 'utf8') + Buffer.byteLength(dataType, 'utf8');
    size += dataType.startsWith('Binary') ? Buffer.from(value, 'base64').length : Buffer.byteLength(value, 'utf8');
  }
  return size;
}

// The size SNS counts for a whole batch, read leniently: entries with bad content are refused one by one later.
function rawSize(entry: QueryInput): number {
  let size = Buffer.byteLength(textOf(entry, 'Message') ?? '', 'utf8');
  for (const attribute of listOf(entry, 'MessageAttributes')) {
    const value = typeof attribute['Value'] === 'object' && !Array.isArray(attribute['Value']) ? attribute['Value'] : {};
    const dataType = textOf(value, 'DataType') ?? '';
    const text = (dataType.startsWith('Binary') ? textOf(value, 'BinaryValue') : textOf(value, 'StringValue')) ?? '';
    size += Buffer.byteLength(textOf(attribute, 'Name') ?? '', 'utf8') + Buffer.byteLength(dataType, 'utf8');
    size += dataType.startsWith('Binary') ? Buffer.from(text, 'base64').length : Buffer.byteLength(text, 'utf8');
  }
  return size;
}

/** A Publish input or batch entry as SNS checks it against its topic. */
function checkedMessage(input: QueryInput, topic: Topic): MessageToPublish {
  const message = textOf(input, 'Message');
  if (message === undefined || message === '') throw invalidParameter('Empty message');
  const groupId = textOf(input, 'MessageGroupId');
  const deduplicationId = textOf(input, 'MessageDeduplicationId');
  if (topic.settings.fifo && groupId === undefined) throw invalidParameter('The MessageGroupId parameter is required for FIFO topics');
  if (!topic.settings.fifo && deduplicationId !== undefined) {
    throw invalidParameter('MessageDeduplicationId Reason: The request includes MessageDeduplicationId parameter that is not valid for this topic type');
  }
  if (groupId !== undefined && !GROUP_OR_DEDUPLICATION_ID.test(groupId)) throw invalidParameter('MessageGroupId Reason: It must be 1 to 128 alphanumeric or punctuation characters');
  if (deduplicationId !== undefined && !GROUP_OR_DEDUPLICATION_ID.test(deduplicationId)) {
    throw invalidParameter('MessageDeduplicationId Reason: It must be 1 to 128 alphanumeric or punctuation characters');
  }
  const checked: MessageToPublish = { message, attributes: attributesOf(input), groupId, deduplicationId, subject: textOf(input, 'Subject') };
  if (sizeOf(checked) > topic.settings.maximumMessageSize) throw invalidParameter('Message too long');
  return checked;
}

function failEntryFault(topic: Topic, message: MessageToPublish, context: PublishContext): boolean {
  if (context.faults.failEntry?.({ topicArn: topic.arn, message: message.message }) !== true) return false;
  context.faultCounts.failedEntries += 1;
  return true;
}

/**
 * Publish: one message to a topic (`TopicArn`, or `TargetArn` naming one), checked as SNS checks it.
 *
 * @example
 * ```ts
 * publish({ TopicArn: arn, Message: 'hi' }, context) // { PublishResult: { MessageId } }
 * ```
 */
export function publish(input: QueryInput, context: PublishContext): XmlValue {
  const topic = context.topics.byArnOf(textOf(input, 'TopicArn') ?? textOf(input, 'TargetArn'));
  const message = checkedMessage(input, topic);
  if (failEntryFault(topic, message, context)) throw internalError();
  const { messageId, sequenceNumber, published } = topic.publish(message, context.now());
  if (published !== undefined) context.deliver(topic, published);
  return { PublishResult: { MessageId: messageId, SequenceNumber: sequenceNumber } };
}

/**
 * PublishBatch as SNS answers it: the request refused as a whole when the topic does not exist,
 * when it has no entries or more than 10, an id that is not 1 to 80 letters, digits, - or _, an id
 * twice, or messages that together pass the topic's MaximumMessageSize; otherwise each entry
 * answered in `Successful` or in `Failed` (InvalidParameter as the sender's fault, or InternalError
 * from the `failEntry` fault).
 *
 * @example
 * ```ts
 * publishBatch({ TopicArn: arn, PublishBatchRequestEntries: [{ Id: '0', Message: 'hi' }] }, context)
 * ```
 */
export function publishBatch(input: QueryInput, context: PublishContext): XmlValue {
  const topic = context.topics.byArnOf(textOf(input, 'TopicArn'));
  const entries = listOf(input, 'PublishBatchRequestEntries');
  if (entries.length === 0) throw emptyBatch();
  if (entries.length > MAX_ENTRIES) throw tooManyEntries();
  const ids = new Set<string>();
  let total = 0;
  for (const entry of entries) {
    const id = textOf(entry, 'Id') ?? '';
    if (!ENTRY_ID.test(id)) throw invalidBatchEntryId();
    if (ids.has(id)) throw batchEntryIdsNotDistinct();
    ids.add(id);
    total += rawSize(entry);
  }
  if (total > topic.settings.maximumMessageSize) throw batchRequestTooLong();
  const successful: XmlValue[] = [];
  const failed: XmlValue[] = [];
  for (const entry of entries) {
    const id = textOf(entry, 'Id')!;
    try {
      const message = checkedMessage(entry, topic);
      if (failEntryFault(topic, message, context)) {
        failed.push({ Id: id, Code: 'InternalError', Message: 'Internal Error', SenderFault: false });
        continue;
      }
      const { messageId, sequenceNumber, published } = topic.publish(message, context.now());
      if (published !== undefined) context.deliver(topic, published);
      successful.push({ Id: id, MessageId: messageId, SequenceNumber: sequenceNumber });
    } catch (error) {
      if (!(error instanceof SnsError)) throw error;
      failed.push({ Id: id, Code: error.code, Message: error.message, SenderFault: error.fault === 'Sender' });
    }
  }
  return { PublishBatchResult: { Successful: successful, Failed: failed } };
}
