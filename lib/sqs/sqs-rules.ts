import type { Duration } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { InfraConfigError } from '../infra-config-error.js';
import { SQS_MAX_CONCURRENCY } from './sqs-settings.js';
import type { InboxConsumerSettings, QueueFacts } from './sqs-settings.js';

/** One thing an `InboxConsumer` refuses: `breaks` says whether the settings do it, `message` what to change. */
export interface InboxConsumerRule {
  readonly breaks: (s: InboxConsumerSettings) => boolean;
  readonly message: (s: InboxConsumerSettings) => string;
}

const seconds = (d: Duration): string => `${d.toSeconds({ integral: false })} s`;
const retention = (queue: QueueFacts | undefined): string => {
  if (queue === undefined) return '0 s (no dead-letter queue the construct can read)';
  return queue.retention === undefined ? 'unknown (an imported queue)' : seconds(queue.retention);
};
const kind = (fifo: boolean): string => (fifo ? 'FIFO' : 'standard');
const isWhole = (n: number, min: number, max: number): boolean => Number.isInteger(n) && n >= min && n <= max;
const isShare = (n: number): boolean => n > 0 && n < 1;
const isAcu = (n: number): boolean => Number.isInteger(n * 2) && n >= 0.5 && n <= 256;

/** SQS event source limits (Lambda's, not ours). */
const FIFO_MAX_BATCH = 10;
const STANDARD_MAX_BATCH = 10_000;
const MAX_BATCHING_WINDOW_SECONDS = 300;

/**
 * Everything an `InboxConsumer` refuses at synth time, checked in this order before anything is
 * built. Each message quotes the value given.
 *
 * @example
 * ```ts
 * const broken = INBOX_CONSUMER_RULES.filter((rule) => rule.breaks(settings)).map((rule) => rule.message(settings));
 * ```
 */
export const INBOX_CONSUMER_RULES: readonly InboxConsumerRule[] = [
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
    breaks: (s) => !isWhole(s.maxReceiveCount, 5, 1000),
    message: (s) => `maxReceiveCount must be a whole number from 5 to 1000, so that throttling and transient failures do not dead-letter a good message, but ${s.maxReceiveCount} was provided.`,
  },
  {
    breaks: (s) => s.fifo && s.batchSize > FIFO_MAX_BATCH,
    message: (s) => `A FIFO queue takes a batch size of at most ${FIFO_MAX_BATCH}, but ${s.batchSize} was provided: lower batchSize.`,
  },
  {
    breaks: (s) => !isWhole(s.batchSize, 1, STANDARD_MAX_BATCH),
    message: (s) => `batchSize must be a whole number from 1 to ${STANDARD_MAX_BATCH}, but ${s.batchSize} was provided.`,
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
    breaks: (s) => s.props.maxConcurrency !== undefined && !isWhole(s.props.maxConcurrency, SQS_MAX_CONCURRENCY.min, SQS_MAX_CONCURRENCY.max),
    message: (s) => `maxConcurrency must be a whole number from ${SQS_MAX_CONCURRENCY.min} to ${SQS_MAX_CONCURRENCY.max}, but ${s.props.maxConcurrency} was provided.`,
  },
  {
    breaks: (s) => s.props.clusterMaxCapacity !== undefined && !isAcu(s.props.clusterMaxCapacity),
    message: (s) => `clusterMaxCapacity must be ACUs from 0.5 to 256 in steps of 0.5 (the cluster's Aurora Serverless v2 maximum), but ${s.props.clusterMaxCapacity} was provided.`,
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
    breaks: (s) => s.longestMessageLife !== undefined && s.inboxRetention.toMilliseconds() < s.longestMessageLife.toMilliseconds(),
    message: (s) => `The inbox retention must be at least the queue's message retention plus the dead-letter queue's, because a message can `
      + 'wait out the first and then the second (a FIFO DLQ resets the enqueue time, and a redrive starts it again); a shorter one lets a late '
      + `redelivery find no claim and be applied again. But an inboxRetention of ${seconds(s.inboxRetention)} was provided for a queue retention of `
      + `${retention(s.queue)} plus a DLQ retention of ${retention(s.deadLetterQueue)}: raise inboxRetention to ${seconds(s.longestMessageLife!)} or shorten a retentionPeriod.`,
  },
  {
    breaks: (s) => !isShare(s.duplicateRateThreshold),
    message: (s) => `duplicateRateThreshold is a share between 0 and 1 (0.1 means 10 %), but ${s.duplicateRateThreshold} was provided.`,
  },
  {
    breaks: (s) => !isShare(s.failedRateThreshold),
    message: (s) => `failedRateThreshold is a share between 0 and 1 (0.05 means 5 %), but ${s.failedRateThreshold} was provided.`,
  },
  {
    breaks: (s) => s.secret === undefined,
    message: () => 'The cluster has no secret the construct can see (an imported cluster has none): pass the secret the Data API signs in with as secret.',
  },
];

/**
 * Throws `InfraConfigError` with the message of every rule the settings break, one a line.
 *
 * @example
 * ```ts
 * validateInboxConsumer(resolveSettings(props, id)); // before any resource is made
 * ```
 */
export function validateInboxConsumer(settings: InboxConsumerSettings): void {
  const broken = INBOX_CONSUMER_RULES.filter((rule) => rule.breaks(settings)).map((rule) => rule.message(settings));
  if (broken.length > 0) throw new InfraConfigError(`InboxConsumer ${settings.serviceName}: ${broken.join('\n')}`);
}
