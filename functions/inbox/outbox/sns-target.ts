import { PublishBatchCommand, SNSClient } from '@aws-sdk/client-sns';
import { AWS_LIMITS } from '../aws-limits.js';
import { attributedPublisher } from './attributed-target.js';
import type { Publisher } from './publisher.js';

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
  return attributedPublisher({
    factory: 'snsTarget',
    address: options?.topicArn,
    addressPattern: TOPIC_ARN,
    addressIs: "the topic's ARN (arn:aws:sns:<region>:<account>:<name>)",
    sizeIs: "the topic's MaximumMessageSize",
    limits: AWS_LIMITS.sns,
    maxMessageBytes: options?.maxMessageBytes,
    client: options?.client,
    newClient: () => new SNSClient({}),
    bodyMember: 'Message',
    send: ({ client, address, entries, signal }) => client.send(new PublishBatchCommand({ TopicArn: address, PublishBatchRequestEntries: entries }), { abortSignal: signal }),
    isGone: (error) => ['NotFoundException', 'NotFound'].includes((error as Error)?.name),
  });
}
