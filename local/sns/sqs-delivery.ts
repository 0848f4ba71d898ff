import { randomBytes } from 'node:crypto';
import { SendMessageCommand, type MessageAttributeValue, type SQSClient } from '@aws-sdk/client-sqs';
import type { PublishedMessage, QueueSubscription } from './topics.js';

/**
 * The body SNS puts in a subscribed queue without raw message delivery: a notification around the
 * message, as AWS's "Amazon SNS raw message delivery" page shows it (the signature is not a real one).
 *
 * @example
 * ```ts
 * JSON.parse(notificationBody(published, topicArn, subscription, Date.now())).Message // what was published
 * ```
 */
export function notificationBody(message: PublishedMessage, topicArn: string, subscription: QueueSubscription, now: number): string {
  const region = topicArn.split(':')[3];
  const attributes = Object.entries(message.attributes);
  return JSON.stringify({
    Type: 'Notification',
    MessageId: message.messageId,
    ...(message.sequenceNumber !== undefined ? { SequenceNumber: message.sequenceNumber } : {}),
    TopicArn: topicArn,
    ...(message.subject !== undefined ? { Subject: message.subject } : {}),
    Message: message.message,
    Timestamp: new Date(now).toISOString(),
    SignatureVersion: '1',
    Signature: randomBytes(64).toString('base64'),
    SigningCertURL: `https://sns.${region}.amazonaws.com/SimpleNotificationService-local.pem`,
    UnsubscribeURL: `https://sns.${region}.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=${subscription.arn}`,
    ...(attributes.length > 0 ? { MessageAttributes: Object.fromEntries(attributes.map(([name, { dataType, value }]) => [name, { Type: dataType, Value: value }])) } : {}),
  });
}

function sqsAttributes(message: PublishedMessage): Record<string, MessageAttributeValue> | undefined {
  const entries = Object.entries(message.attributes);
  if (entries.length === 0) return undefined;
  return Object.fromEntries(entries.map(([name, { dataType, value }]) => [name, dataType.startsWith('Binary')
    ? { DataType: dataType, BinaryValue: Buffer.from(value, 'base64') }
    : { DataType: dataType, StringValue: value }]));
}

/** The queue URL of a queue ARN on the SQS emulator at `endpoint`. */
function queueUrlOf(endpoint: string, queueArn: string): string {
  const [, , , , account, name] = queueArn.split(':');
  return `${endpoint}/${account}/${name}`;
}

/**
 * Sends a published message to a subscribed queue as SNS does: in a notification, or raw with its
 * attributes as message attributes; from a FIFO topic with its group and deduplication ids.
 *
 * @example
 * ```ts
 * await deliverToQueue(client, sqs.endpoint, published, topicArn, subscription, Date.now());
 * ```
 */
export async function deliverToQueue(client: SQSClient, endpoint: string, message: PublishedMessage, topicArn: string, subscription: QueueSubscription, now: number): Promise<void> {
  await client.send(new SendMessageCommand({
    QueueUrl: queueUrlOf(endpoint, subscription.queueArn),
    MessageBody: subscription.raw ? message.message : notificationBody(message, topicArn, subscription, now),
    MessageAttributes: subscription.raw ? sqsAttributes(message) : undefined,
    MessageGroupId: message.groupId,
    MessageDeduplicationId: message.deduplicationId,
  }));
}
