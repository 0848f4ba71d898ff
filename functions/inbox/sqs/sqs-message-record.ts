import type { Message, MessageAttributeValue } from '@aws-sdk/client-sqs';
import type { SQSMessageAttribute, SQSRecord, SQSRecordAttributes } from 'aws-lambda';

/** The queue the records come from, as Lambda names it in each record. */
export interface EventSourceQueue {
  readonly arn: string;
  readonly region: string;
}

function lambdaAttribute(value: MessageAttributeValue): SQSMessageAttribute {
  const attribute: SQSMessageAttribute = { stringListValues: [], binaryListValues: [], dataType: value.DataType ?? 'String' };
  if (value.StringValue !== undefined) attribute.stringValue = value.StringValue;
  if (value.BinaryValue !== undefined) attribute.binaryValue = Buffer.from(value.BinaryValue).toString('base64');
  return attribute;
}

/**
 * A received SQS message as Lambda's poller puts it in an SQSEvent: camel-cased members, system
 * attributes as strings, message attributes in Lambda's shape (`stringValue`, `binaryValue` in
 * base64, empty `stringListValues` and `binaryListValues`, `dataType`), `eventSource: 'aws:sqs'`,
 * the queue's ARN and region. The local event source builds its events with it, and the operator's
 * DLQ redrive reads a dead-lettered message's key through it as the consumer would.
 *
 * @example
 * ```ts
 * const record = toSqsRecord(message, { arn: 'arn:aws:sqs:us-east-1:000000000000:orders', region: 'us-east-1' });
 * record.attributes.ApproximateReceiveCount // '1'
 * ```
 */
export function toSqsRecord(message: Message, queue: EventSourceQueue): SQSRecord {
  const system = message.Attributes ?? {};
  const attributes: SQSRecordAttributes = {
    ApproximateReceiveCount: system.ApproximateReceiveCount ?? '1',
    SentTimestamp: system.SentTimestamp ?? '',
    SenderId: system.SenderId ?? '',
    ApproximateFirstReceiveTimestamp: system.ApproximateFirstReceiveTimestamp ?? '',
  };
  for (const name of ['SequenceNumber', 'MessageGroupId', 'MessageDeduplicationId', 'AWSTraceHeader', 'DeadLetterQueueSourceArn'] as const) {
    const value = system[name];
    if (value !== undefined) attributes[name] = value;
  }
  const record: SQSRecord = {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes,
    messageAttributes: Object.fromEntries(Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [name, lambdaAttribute(value)])),
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queue.arn,
    awsRegion: queue.region,
  };
  if (message.MD5OfMessageAttributes !== undefined) record.md5OfMessageAttributes = message.MD5OfMessageAttributes;
  return record;
}
