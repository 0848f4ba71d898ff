import * as sqs from 'aws-cdk-lib/aws-sqs';
import { days, isWhole, seconds } from '../shared/rule-words.js';
import type { ConsumerRule } from '../shared/rule-words.js';
import type { QueueFacts } from '../consumer/queue-facts.js';
import { SQS_MAX_CONCURRENCY } from './sqs-settings.js';
import type { SqsSettings } from './sqs-settings.js';

const retention = (queue: QueueFacts | undefined): string => {
  if (queue === undefined) return '0 days (no dead-letter queue the construct can read)';
  return queue.retention === undefined ? '0 days (an imported queue, whose retention cannot be read)' : days(queue.retention);
};
const kind = (fifo: boolean): string => (fifo ? 'FIFO' : 'standard');

/** SQS event source limits (Lambda's, not ours). */
const FIFO_MAX_BATCH = 10;
const BATCH_SIZE = { min: 1, max: 10_000 } as const;
const MAX_BATCHING_WINDOW_SECONDS = 300;
const MAX_RECEIVE_COUNT = { min: 5, max: 1000 } as const;

/**
 * What an `InboxConsumer` refuses at synth time beyond the shared rules (`COMMON_RULES`), checked
 * in this order before anything is built. Each message quotes the value given.
 *
 * @example
 * ```ts
 * const broken = SQS_RULES.filter((rule) => rule.breaks(settings));
 * ```
 */
export const SQS_RULES: readonly ConsumerRule<SqsSettings>[] = [
  {
    breaks: (s) => s.props.queue !== undefined && s.props.queueProps !== undefined,
    message: () => 'InboxConsumer takes an existing queue or queue props, not both: drop queueProps (the existing queue keeps its own settings) or drop queue.',
  },
  {
    breaks: (s) => s.props.queueProps?.deadLetterQueue !== undefined,
    message: (s) => `Set the dead-letter queue with deadLetterQueue and maxReceiveCount, not queueProps.deadLetterQueue (maxReceiveCount ${s.props.queueProps?.deadLetterQueue?.maxReceiveCount} was provided there).`,
  },
  {
    breaks: (s) => s.props.queue !== undefined && s.queue.hasRedrivePolicy === false,
    message: () => 'The existing queue has no redrive policy, so a message that keeps failing would be received again and again until its retention '
      + 'drops it, unseen: give it a deadLetterQueue ({ queue, maxReceiveCount: 5 } in its props) and pass that queue as deadLetterQueue too, for its alarm.',
  },
  {
    breaks: (s) => s.props.queueProps?.encryption === sqs.QueueEncryption.UNENCRYPTED,
    message: () => 'The queue is always encrypted, but queueProps.encryption UNENCRYPTED was provided: drop it (SQS-managed encryption is the default) or choose KMS.',
  },
  {
    breaks: (s) => s.props.queueProps?.enforceSSL === false,
    message: () => 'The queue refuses plain-HTTP access, but queueProps.enforceSSL false was provided: drop enforceSSL (every AWS SDK uses HTTPS).',
  },
  {
    breaks: (s) => s.props.queue !== undefined && s.props.maxReceiveCount !== undefined,
    message: (s) => `maxReceiveCount applies to a queue the construct makes, but ${s.props.maxReceiveCount} was provided with an existing queue: set the redrive policy on that queue instead.`,
  },
  {
    breaks: (s) => !isWhole(s.maxReceiveCount, MAX_RECEIVE_COUNT),
    message: (s) => `maxReceiveCount must be a whole number from ${MAX_RECEIVE_COUNT.min} to ${MAX_RECEIVE_COUNT.max}, so that throttling and transient failures do not dead-letter a good message, but ${s.maxReceiveCount} was provided.`,
  },
  {
    breaks: (s) => s.fifo && s.batchSize > FIFO_MAX_BATCH,
    message: (s) => `A FIFO queue takes a batch size of at most ${FIFO_MAX_BATCH}, but ${s.batchSize} was provided: lower batchSize.`,
  },
  {
    breaks: (s) => !isWhole(s.batchSize, BATCH_SIZE),
    message: (s) => `batchSize must be a whole number from ${BATCH_SIZE.min} to ${BATCH_SIZE.max}, but ${s.batchSize} was provided.`,
  },
  {
    breaks: (s) => s.fifo && s.props.maxBatchingWindow !== undefined,
    message: (s) => `A FIFO queue takes no batching window, but a maxBatchingWindow of ${seconds(s.props.maxBatchingWindow!)} was provided: remove maxBatchingWindow.`,
  },
  {
    breaks: (s) => !s.fifo && s.batchSize > FIFO_MAX_BATCH && (s.props.maxBatchingWindow?.toSeconds({ integral: false }) ?? 0) <= 0,
    message: (s) => `A batch size over ${FIFO_MAX_BATCH} needs a batching window, but batchSize ${s.batchSize} was provided without maxBatchingWindow: set maxBatchingWindow (at least 1 second) or lower batchSize.`,
  },
  {
    breaks: (s) => (s.props.maxBatchingWindow?.toSeconds({ integral: false }) ?? 0) > MAX_BATCHING_WINDOW_SECONDS,
    message: (s) => `maxBatchingWindow must be at most ${MAX_BATCHING_WINDOW_SECONDS} s, but ${seconds(s.props.maxBatchingWindow!)} was provided.`,
  },
  {
    breaks: (s) => s.props.maxConcurrency !== undefined && !isWhole(s.props.maxConcurrency, SQS_MAX_CONCURRENCY),
    message: (s) => `maxConcurrency must be a whole number from ${SQS_MAX_CONCURRENCY.min} to ${SQS_MAX_CONCURRENCY.max}, but ${s.props.maxConcurrency} was provided.`,
  },
  {
    breaks: (s) => s.queue.visibilityTimeout !== undefined
      && s.queue.visibilityTimeout.toMilliseconds() < s.requiredVisibilityTimeout.toMilliseconds(),
    message: (s) => `The queue's visibility timeout must be at least 6 x the function timeout plus the batching window `
      + `(${seconds(s.requiredVisibilityTimeout)} for a timeout of ${seconds(s.timeout)}), but ${seconds(s.queue.visibilityTimeout!)} was provided: `
      + `raise the visibility timeout to ${seconds(s.requiredVisibilityTimeout)} or lower the function timeout.`,
  },
  {
    breaks: (s) => s.deadLetterQueue !== undefined && s.deadLetterQueue.fifo !== s.queue.fifo,
    message: (s) => `The queue is ${kind(s.queue.fifo)} but the dead-letter queue provided is ${kind(s.deadLetterQueue!.fifo)}: `
      + `a queue and its DLQ must be of the same kind, so give a ${kind(s.queue.fifo)} deadLetterQueue.`,
  },
  {
    breaks: (s) => s.inboxRetention.toMilliseconds() < s.longestMessageLife.toMilliseconds(),
    message: (s) => 'The inbox retention must be at least the queue\'s message retention plus the dead-letter queue\'s plus the queue\'s again: a message '
      + 'can wait out the queue, then the DLQ (a FIFO DLQ restarts its retention), and a redrive then puts a copy back in the queue with a new '
      + 'messageId and enqueue time, a second life there; a shorter one lets a late redelivery find no claim and be applied again. But an '
      + `inboxRetention of ${days(s.inboxRetention)} was provided for a queue retention of ${retention(s.queue)} plus a DLQ retention of `
      + `${retention(s.deadLetterQueue)} plus ${retention(s.queue)} after a redrive: raise inboxRetention to ${days(s.longestMessageLife)} or shorten a retentionPeriod.`,
  },
  {
    breaks: (s) => !s.fifo && s.deadLetterLife !== undefined && s.deadLetterLife.toSeconds() <= 0,
    message: (s) => 'A standard dead-letter queue keeps a message\'s first enqueue time, so a message that spent its time in the queue expires on '
      + `arriving in a DLQ that keeps it no longer, before anyone sees it. But a DLQ retention of ${retention(s.deadLetterQueue)} was provided for a queue `
      + `retention of ${retention(s.queue)}: give the dead-letter queue a longer retentionPeriod (up to 14 days) or shorten the queue's.`,
  },
];
