import { PublishBatchCommand, SNSClient, type PublishBatchRequestEntry } from '@aws-sdk/client-sns';
import { InboxConfigError } from '../errors.js';
import { answeredCall, entryAnswers } from './aws-answers.js';
import { attributedMessage } from './message-checks.js';
import type { OutboxEntry, OutboxMessage, PreparedMessage } from './outbox-message.js';
import type { PrepareContext, Publisher } from './publisher.js';
import { SNS_LIMITS } from './size-limits.js';
import { keyedAttributes } from './sqs-target.js';

/** Options of `snsTarget`. */
export interface SnsTargetOptions {
  /** The topic's ARN; one ending in `.fifo` is a FIFO topic. */
  readonly topicArn: string;
  /**
   * The client to publish with.
   * @default new SNSClient({}), made at the first publish
   */
  readonly client?: SNSClient;
  /**
   * The topic's MaximumMessageSize (body and attributes), up to 1 MiB.
   * @default 262144 (256 KiB, a topic's default)
   */
  readonly maxMessageBytes?: number;
}

const TOPIC_ARN = /^arn:aws[\w-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}(\.fifo)?$/;

/**
 * An SNS topic as an outbox target: rows go by `PublishBatch`, 10 at most and within the topic's
 * size a call, each with its row's id as the `idempotency-key` string attribute (an SQS queue
 * subscribed with raw message delivery gets it as a message attribute); on a FIFO topic also as
 * `MessageDeduplicationId`, with the row's group as `MessageGroupId`. Entries SNS failed on its side
 * are published again; those it refused as the sender's fault, and every row when the topic does
 * not exist, are marked failed.
 *
 * @example
 * ```ts
 * const targets = { notices: snsTarget({ topicArn: process.env.NOTICES_TOPIC_ARN! }) };
 * ```
 */
export function snsTarget(options: SnsTargetOptions): Publisher {
  if (typeof options?.topicArn !== 'string' || !TOPIC_ARN.test(options.topicArn)) {
    throw new InboxConfigError(`snsTarget needs the topic's ARN (arn:aws:sns:<region>:<account>:<name>), but "${String(options?.topicArn)}" was given.`);
  }
  const { topicArn } = options;
  const fifo = topicArn.endsWith('.fifo');
  const maxMessageBytes = options.maxMessageBytes ?? SNS_LIMITS.maxMessageBytes;
  if (!Number.isInteger(maxMessageBytes) || maxMessageBytes < 1024 || maxMessageBytes > SNS_LIMITS.ceilingBytes) {
    throw new InboxConfigError(`snsTarget maxMessageBytes must be the topic's MaximumMessageSize, a whole number from 1024 to ${SNS_LIMITS.ceilingBytes}, but ${String(maxMessageBytes)} was given.`);
  }
  let client = options.client;

  const toEntry = (entry: OutboxEntry, index: number): PublishBatchRequestEntry => ({
    Id: String(index),
    Message: entry.body,
    MessageAttributes: keyedAttributes(entry),
    ...(entry.groupId !== undefined ? { MessageGroupId: entry.groupId } : {}),
    ...(fifo ? { MessageDeduplicationId: entry.id } : {}),
  });

  return {
    fifo,
    maxBatchEntries: SNS_LIMITS.maxBatchEntries,
    maxMessageBytes,
    // SNS holds a whole batch to the topic's MaximumMessageSize.
    maxBatchBytes: maxMessageBytes,
    prepare: (message: OutboxMessage, context: PrepareContext): PreparedMessage =>
      attributedMessage(message, context, { fifo, maxAttributes: SNS_LIMITS.maxAttributes, maxMessageBytes }),
    publish(entries, { signal }) {
      client ??= new SNSClient({});
      const sns = client;
      return answeredCall(entries, async (batch) => {
        const response = await sns.send(new PublishBatchCommand({ TopicArn: topicArn, PublishBatchRequestEntries: batch.map(toEntry) }), { abortSignal: signal });
        return entryAnswers(batch.map((_, i) => String(i)), response.Successful, response.Failed);
      }, (error) => ['NotFoundException', 'NotFound'].includes((error as Error)?.name));
    },
  };
}
