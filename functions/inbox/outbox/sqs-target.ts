import { SendMessageBatchCommand, SQSClient, type MessageAttributeValue, type SendMessageBatchRequestEntry } from '@aws-sdk/client-sqs';
import { InboxConfigError } from '../errors.js';
import { IDEMPOTENCY_KEY_ATTRIBUTE } from '../contract.js';
import { answeredCall, entryAnswers } from './aws-answers.js';
import { attributedMessage, SQS_CHARACTERS } from './message-checks.js';
import type { OutboxEntry, OutboxMessage, PreparedMessage } from './outbox-message.js';
import type { PrepareContext, Publisher } from './publisher.js';
import { SQS_LIMITS } from './size-limits.js';
import { MAX_MESSAGE_ATTRIBUTES, traceAttributes } from '../trace/outgoing-context.js';

/** Options of `sqsTarget`. */
export interface SqsTargetOptions {
  /** The queue's URL; one ending in `.fifo` is a FIFO queue. */
  readonly queueUrl: string;
  /**
   * The client to send with.
   * @default new SQSClient({}), made at the first send
   */
  readonly client?: SQSClient;
  /**
   * The queue's MaximumMessageSize: a message over it (body and attributes) is refused when its row is written.
   * @default 1048576 (1 MiB, the SQS maximum and default since 2025)
   */
  readonly maxMessageBytes?: number;
}

/** The message attributes of an entry: the caller's, the row's id as `idempotency-key` and its trace context as `traceparent` while there is room. */
export function keyedAttributes(entry: OutboxEntry): Record<string, MessageAttributeValue> {
  const attributes: Record<string, MessageAttributeValue> = {};
  for (const [name, value] of Object.entries(entry.attributes)) attributes[name] = { DataType: 'String', StringValue: value };
  attributes[IDEMPOTENCY_KEY_ATTRIBUTE] = { DataType: 'String', StringValue: entry.id };
  // The row's trace context, not the sender's: the relay sends long after the writer's span ended.
  for (const [name, value] of Object.entries(traceAttributes(Object.keys(attributes), MAX_MESSAGE_ATTRIBUTES, entry.traceparent))) {
    attributes[name] = { DataType: 'String', StringValue: value };
  }
  return attributes;
}

/**
 * An SQS queue as an outbox target: rows go by `SendMessageBatch`, 10 at most and within the
 * size a call, each with its row's id as the `idempotency-key` string attribute; on a FIFO queue
 * also as `MessageDeduplicationId`, with the row's group as `MessageGroupId` (the 5-minute
 * deduplication window is not the guarantee: the next consumer's inbox is). Entries SQS failed on
 * its side are sent again; those it refused as the sender's fault, and every row when the queue
 * does not exist, are marked failed.
 *
 * @example
 * ```ts
 * const targets = { shipped: sqsTarget({ queueUrl: process.env.SHIPPED_QUEUE_URL! }) };
 * ```
 */
export function sqsTarget(options: SqsTargetOptions): Publisher {
  if (typeof options?.queueUrl !== 'string' || !/^https?:\/\/\S+\/\S+$/.test(options.queueUrl)) {
    throw new InboxConfigError(`sqsTarget needs the queue URL (https://sqs.<region>.amazonaws.com/<account>/<name>), but "${String(options?.queueUrl)}" was given.`);
  }
  const { queueUrl } = options;
  const fifo = queueUrl.endsWith('.fifo');
  const maxMessageBytes = options.maxMessageBytes ?? SQS_LIMITS.maxMessageBytes;
  if (!Number.isInteger(maxMessageBytes) || maxMessageBytes < 1024 || maxMessageBytes > SQS_LIMITS.maxMessageBytes) {
    throw new InboxConfigError(`sqsTarget maxMessageBytes must be the queue's MaximumMessageSize, a whole number from 1024 to ${SQS_LIMITS.maxMessageBytes}, but ${String(maxMessageBytes)} was given.`);
  }
  let client = options.client;

  const toEntry = (entry: OutboxEntry, index: number): SendMessageBatchRequestEntry => ({
    Id: String(index),
    MessageBody: entry.body,
    MessageAttributes: keyedAttributes(entry),
    ...(entry.groupId !== undefined ? { MessageGroupId: entry.groupId } : {}),
    ...(fifo ? { MessageDeduplicationId: entry.id } : {}),
  });

  return {
    fifo,
    maxBatchEntries: SQS_LIMITS.maxBatchEntries,
    maxMessageBytes,
    // A batch is held to the queue's size too: SQS counts a whole batch against the same limit.
    maxBatchBytes: maxMessageBytes,
    prepare: (message: OutboxMessage, context: PrepareContext): PreparedMessage =>
      attributedMessage(message, context, { fifo, maxAttributes: SQS_LIMITS.maxAttributes, maxMessageBytes, characters: SQS_CHARACTERS }),
    publish(entries, { signal }) {
      client ??= new SQSClient({});
      const sqs = client;
      return answeredCall(entries, async (batch) => {
        const response = await sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: batch.map(toEntry) }), { abortSignal: signal });
        return entryAnswers(batch.map((_, i) => String(i)), response.Successful, response.Failed);
      }, (error) => ['QueueDoesNotExist', 'AWS.SimpleQueueService.NonExistentQueue', 'InvalidAddress'].includes((error as Error)?.name));
    },
  };
}
