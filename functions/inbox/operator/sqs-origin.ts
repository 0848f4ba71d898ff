import type { MessageAttributeValue } from '@aws-sdk/client-sqs';
import { IDEMPOTENCY_KEY_ATTRIBUTE } from '../contract.js';

/** What an SQS record's kept origin holds (see `sqsKept`): Lambda's record fields, as they came. */
export interface SqsOrigin {
  readonly messageId: string;
  readonly eventSourceARN: string | null;
  readonly messageAttributes: Readonly<Record<string, LambdaMessageAttribute>>;
  readonly messageGroupId: string | null;
  readonly messageDeduplicationId: string | null;
}

/** A message attribute as Lambda's SQS event writes it (binary values in base64). */
interface LambdaMessageAttribute {
  readonly dataType: string;
  readonly stringValue?: string;
  readonly binaryValue?: string;
}

/**
 * The attributes of a kept SQS message as SendMessage takes them, the idempotency key left out (the
 * producer sets it from the kept key, which may differ from a bad one the message came with).
 *
 * @example
 * ```ts
 * sendAttributes({ tenant: { dataType: 'String', stringValue: 'acme' } }) // { tenant: { DataType: 'String', StringValue: 'acme' } }
 * ```
 */
export function sendAttributes(attributes: SqsOrigin['messageAttributes']): Record<string, MessageAttributeValue> {
  const out: Record<string, MessageAttributeValue> = {};
  for (const [name, value] of Object.entries(attributes)) {
    if (name === IDEMPOTENCY_KEY_ATTRIBUTE) continue;
    out[name] = value.binaryValue !== undefined && value.binaryValue !== null
      ? { DataType: value.dataType, BinaryValue: Buffer.from(value.binaryValue, 'base64') }
      : { DataType: value.dataType, StringValue: value.stringValue ?? '' };
  }
  return out;
}

/**
 * The queue's name and owner in an SQS ARN (`arn:aws:sqs:<region>:<account>:<name>`), for GetQueueUrl.
 *
 * @example
 * ```ts
 * queueOfArn('arn:aws:sqs:eu-west-1:123456789012:orders.fifo') // { QueueName: 'orders.fifo', QueueOwnerAWSAccountId: '123456789012' }
 * ```
 */
export function queueOfArn(arn: string): { QueueName: string; QueueOwnerAWSAccountId: string } | undefined {
  const parts = arn.split(':');
  if (parts.length !== 6 || parts[0] !== 'arn' || parts[2] !== 'sqs') return undefined;
  return { QueueName: parts[5]!, QueueOwnerAWSAccountId: parts[4]! };
}
