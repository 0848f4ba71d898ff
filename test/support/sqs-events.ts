import { randomUUID } from 'node:crypto';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { lambdaContext as localLambdaContext } from '../../local/event-source/index.js';

export interface RecordOptions {
  messageId?: string;
  /** Sets the `idempotency-key` message attribute. */
  key?: string;
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
  return {
    messageId: options.messageId ?? randomUUID(),
    receiptHandle: `handle-${sequence}`,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    attributes,
    messageAttributes: options.key !== undefined
      ? { 'idempotency-key': { dataType: 'String', stringValue: options.key, stringListValues: [], binaryListValues: [] } }
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
