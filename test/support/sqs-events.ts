import { randomUUID } from 'node:crypto';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { lambdaContext as localLambdaContext } from '../../local/event-source/index.js';

export interface RecordOptions {
  messageId?: string;
  /**
   * The `idempotency-key` message attribute, as a producer sets it (sendMessages, the outbox).
   * `null` sends none, as a producer that sets no key: the kit then falls back to the
   * MessageDeduplicationId or the messageId, and warns once per consumer that a redrive changes them.
   * @default the deduplicationId, else the messageId: the key the kit would fall back to, carried by the attribute
   */
  key?: string | null;
  groupId?: string;
  deduplicationId?: string;
  receiveCount?: number;
  queueArn?: string;
}

let sequence = 0;

/** An SQS record as Lambda delivers it; a non-string body is JSON-encoded. */
export function sqsRecord(body: unknown, options: RecordOptions = {}): SQSRecord {
  sequence += 1;
  const fifo = options.groupId !== undefined;
  const queueArn = options.queueArn ?? `arn:aws:sqs:us-east-1:123456789012:orders${fifo ? '.fifo' : ''}`;
  const attributes: SQSRecord['attributes'] = {
    ApproximateReceiveCount: String(options.receiveCount ?? 1),
    SentTimestamp: String(Date.now()),
    SenderId: 'AIDAEXAMPLE',
    ApproximateFirstReceiveTimestamp: String(Date.now()),
    ...(fifo ? { MessageGroupId: options.groupId, SequenceNumber: String(sequence).padStart(20, '0') } : {}),
    ...(options.deduplicationId !== undefined ? { MessageDeduplicationId: options.deduplicationId } : {}),
  };
  const messageId = options.messageId ?? randomUUID();
  const key = options.key === undefined ? options.deduplicationId ?? messageId : options.key;
  return {
    messageId,
    receiptHandle: `handle-${sequence}`,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    attributes,
    messageAttributes: key !== null
      ? { 'idempotency-key': { dataType: 'String', stringValue: key, stringListValues: [], binaryListValues: [] } }
      : {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: 'us-east-1',
  };
}

/** The same delivery again, as SQS redelivers it: same messageId and body, one more receive. */
export function redelivery(record: SQSRecord): SQSRecord {
  const count = Number(record.attributes.ApproximateReceiveCount) + 1;
  return { ...record, receiptHandle: `${record.receiptHandle}-again`, attributes: { ...record.attributes, ApproximateReceiveCount: String(count) } };
}

/** A batch of records. */
export function sqsEvent(...records: SQSRecord[]): SQSEvent {
  return { Records: records };
}

/** A Lambda context whose clock counts down from `remainingMs`. */
export function lambdaContext(remainingMs = 60_000): Context {
  return localLambdaContext({ functionName: 'order-worker', timeoutMs: remainingMs, region: 'us-east-1', accountId: '123456789012', memoryLimitInMB: 512 });
}

/** The messageIds a batch response asks SQS to redeliver. */
export function failedIds(response: { batchItemFailures: { itemIdentifier: string }[] }): string[] {
  return response.batchItemFailures.map((failure) => failure.itemIdentifier);
}

/**
 * An SNS notification as a subscription without raw message delivery puts it in an SQS body (the
 * shape of AWS's "Amazon SNS raw message delivery" page): `message` is the published Message, a
 * non-string JSON-encoded; `key` becomes an `idempotency-key` String message attribute.
 */
export function snsNotification(message: unknown, options: { key?: string; messageId?: string } = {}): Record<string, unknown> {
  const topicArn = 'arn:aws:sns:us-east-1:123456789012:notices';
  return {
    Type: 'Notification',
    MessageId: options.messageId ?? randomUUID(),
    TopicArn: topicArn,
    Message: typeof message === 'string' ? message : JSON.stringify(message),
    Timestamp: new Date().toISOString(),
    SignatureVersion: '1',
    Signature: 'c2lnbmF0dXJl',
    SigningCertURL: 'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-0000.pem',
    UnsubscribeURL: `https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=${topicArn}:0000`,
    ...(options.key !== undefined ? { MessageAttributes: { 'idempotency-key': { Type: 'String', Value: options.key } } } : {}),
  };
}

/** An EventBridge event as a rule targeting a queue puts it in an SQS body. */
export function eventBridgeEvent(detail: object, id: string = randomUUID()): Record<string, unknown> {
  return {
    version: '0', id, 'detail-type': 'OrderShipped', source: 'ship-orders', account: '123456789012',
    time: new Date().toISOString(), region: 'us-east-1', resources: [], detail,
  };
}
