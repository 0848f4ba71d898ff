import { AWS_LIMITS } from '../../functions/inbox/internal.js';
import { listOf, textOf, type QueryInput } from './query-input.js';
import { invalidParameter } from './sns-errors.js';
import type { Topics, TopicSettings } from './topics.js';
import type { XmlValue } from './xml.js';

const TOPIC_NAME = /^[A-Za-z0-9_-]{1,256}$/;
const MESSAGE_BYTES = AWS_LIMITS.sns.messageBytes;

function settingsOf(name: string, attributes: Record<string, string>): TopicSettings {
  const fifo = attributes['FifoTopic'] === 'true';
  if (fifo !== name.endsWith('.fifo')) throw invalidParameter('Fifo Topic names must end with .fifo and Standard Topic cannot end with .fifo');
  if (!TOPIC_NAME.test(fifo ? name.slice(0, -'.fifo'.length) : name)) {
    throw invalidParameter('Topic Name Reason: Topic names must be made up of only uppercase and lowercase ASCII letters, numbers, underscores, and hyphens, and must be between 1 and 256 characters long.');
  }
  const contentBasedDeduplication = attributes['ContentBasedDeduplication'] === 'true';
  if (contentBasedDeduplication && !fifo) throw invalidParameter('Attributes Reason: ContentBasedDeduplication is only valid for FIFO topics');
  const size = attributes['MaximumMessageSize'] === undefined ? MESSAGE_BYTES.default : Number(attributes['MaximumMessageSize']);
  if (!Number.isInteger(size) || size < MESSAGE_BYTES.min || size > MESSAGE_BYTES.max) {
    throw invalidParameter(`Attributes Reason: MaximumMessageSize must be between ${MESSAGE_BYTES.min} and ${MESSAGE_BYTES.max}`);
  }
  return { fifo, contentBasedDeduplication, maximumMessageSize: size };
}

/**
 * CreateTopic: a standard topic, or a FIFO one (`FifoTopic=true`, a name ending in `.fifo`), with
 * ContentBasedDeduplication and MaximumMessageSize; the same name and settings answer the same ARN.
 *
 * @example
 * ```ts
 * createTopic({ Name: 'notices.fifo', Attributes: [{ key: 'FifoTopic', value: 'true' }] }, topics)
 * ```
 */
export function createTopic(input: QueryInput, topics: Topics): XmlValue {
  const name = textOf(input, 'Name') ?? '';
  const attributes = Object.fromEntries(listOf(input, 'Attributes').map((entry) => [textOf(entry, 'key') ?? '', textOf(entry, 'value') ?? '']));
  const topic = topics.create(name, settingsOf(name, attributes));
  return { CreateTopicResult: { TopicArn: topic.arn } };
}

const QUEUE_ARN = /^arn:aws[\w-]*:sqs:[\w-]+:\d{12}:[\w-]{1,75}(\.fifo)?$/;

/**
 * Subscribe, for SQS queues only: `Protocol=sqs`, the queue's ARN as `Endpoint`, and
 * `RawMessageDelivery` among the attributes. Confirmed at once, as an SQS subscription in the
 * same account is. Needs the emulator started with `sqsEndpoint`, where it delivers.
 *
 * @example
 * ```ts
 * subscribe({ TopicArn: arn, Protocol: 'sqs', Endpoint: queueArn, Attributes: [{ key: 'RawMessageDelivery', value: 'true' }] }, topics, true)
 * ```
 */
export function subscribe(input: QueryInput, topics: Topics, deliversToSqs: boolean): XmlValue {
  const topic = topics.byArnOf(textOf(input, 'TopicArn'));
  const protocol = textOf(input, 'Protocol');
  const endpoint = textOf(input, 'Endpoint') ?? '';
  if (protocol !== 'sqs') throw invalidParameter(`Protocol Reason: the local SNS delivers to sqs only, not ${String(protocol)}`);
  if (!QUEUE_ARN.test(endpoint)) throw invalidParameter('SQS endpoint ARN');
  if (!deliversToSqs) throw invalidParameter('Endpoint Reason: start the local SNS with sqsEndpoint (the local SQS) to deliver to queues');
  const attributes = Object.fromEntries(listOf(input, 'Attributes').map((entry) => [textOf(entry, 'key') ?? '', textOf(entry, 'value') ?? '']));
  const raw = attributes['RawMessageDelivery'] ?? 'false';
  if (raw !== 'true' && raw !== 'false') throw invalidParameter('Attributes Reason: RawMessageDelivery must be true or false');
  return { SubscribeResult: { SubscriptionArn: topic.subscribe(endpoint, raw === 'true').arn } };
}

/**
 * DeleteTopic: the topic is gone; publishing to it is then NotFound. Deleting an unknown topic succeeds, as on SNS.
 *
 * @example
 * ```ts
 * deleteTopic({ TopicArn: arn }, topics)
 * ```
 */
export function deleteTopic(input: QueryInput, topics: Topics): XmlValue {
  topics.delete(textOf(input, 'TopicArn') ?? '');
  return undefined;
}
