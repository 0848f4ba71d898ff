import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { AWS_LIMITS } from '../aws-limits.js';
import { attributedPublisher } from './attributed-target.js';
import type { Publisher } from './publisher.js';

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

const GONE = ['QueueDoesNotExist', 'AWS.SimpleQueueService.NonExistentQueue', 'InvalidAddress'];

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
  return attributedPublisher({
    factory: 'sqsTarget',
    address: options?.queueUrl,
    addressPattern: /^https?:\/\/\S+\/\S+$/,
    addressIs: 'the queue URL (https://sqs.<region>.amazonaws.com/<account>/<name>)',
    sizeIs: "the queue's MaximumMessageSize",
    limits: AWS_LIMITS.sqs,
    maxMessageBytes: options?.maxMessageBytes,
    characters: AWS_LIMITS.sqs.characters,
    client: options?.client,
    newClient: () => new SQSClient({}),
    bodyMember: 'MessageBody',
    send: ({ client, address, entries, signal }) => client.send(new SendMessageBatchCommand({ QueueUrl: address, Entries: entries }), { abortSignal: signal }),
    isGone: (error) => GONE.includes((error as Error)?.name),
  });
}
