import type { Duration } from 'aws-cdk-lib';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { InboxConsumerCommonProps } from '../consumer/common-props.js';

/**
 * What an `InboxConsumer` takes: the shared props (`InboxConsumerCommonProps`) and the queue's.
 * Only the database (`database`, or `cluster` and `databaseName`) and the handler's entry are
 * required; every other setting defaults to what the inbox's guarantees need.
 *
 * @example
 * ```ts
 * const props: InboxConsumerProps = {
 *   database, entry: 'functions/order-worker/index.ts',
 *   queueProps: { fifo: true }, requireIdempotencyKey: true,
 * };
 * ```
 */
export interface InboxConsumerProps extends InboxConsumerCommonProps {
  /**
   * An existing queue to consume. Its settings are checked where the CDK can read them (a queue
   * made in this app, which must have a redrive policy); an imported queue's cannot be read at
   * synth time, and the construct warns that its redrive policy and retention are unchecked. Give
   * `queue` or `queueProps`, not both.
   * @default a new queue made from `queueProps`
   */
  readonly queue?: sqs.IQueue;

  /**
   * Settings of the queue the construct makes. `fifo: true` makes a FIFO queue (and a FIFO DLQ).
   * The DLQ is set with `deadLetterQueue` and `maxReceiveCount`, not here. Encryption cannot be
   * turned off (`QueueEncryption.UNENCRYPTED`) nor plain HTTP allowed (`enforceSSL: false`).
   * @default a standard queue with SQS-managed encryption, a TLS-only policy, a visibility timeout
   * of 6 x the function timeout plus the batching window, and the SQS default retention (4 days)
   */
  readonly queueProps?: sqs.QueueProps;

  /**
   * The dead-letter queue. Must be of the queue's kind (FIFO or standard); a standard one must keep
   * messages longer than the queue, since it keeps their first enqueue time.
   * @default a new queue of the queue's kind with SQS-managed encryption, a TLS-only policy and
   * 14 days' retention; none when an existing `queue` is given (it keeps its own redrive policy)
   */
  readonly deadLetterQueue?: sqs.IQueue;

  /**
   * Receives before a message moves to the DLQ; at least 5, so that throttling and transient
   * failures do not dead-letter a good message.
   * @default 5
   */
  readonly maxReceiveCount?: number;

  /**
   * Records per invocation: at most 10 on FIFO; up to 10,000 on standard (over 10 needs a
   * batching window).
   * @default 10
   */
  readonly batchSize?: number;

  /**
   * How long Lambda gathers records before invoking; standard queues only, at most 5 minutes.
   * @default no batching window
   */
  readonly maxBatchingWindow?: Duration;

  /**
   * Most concurrent invocations the event source starts (2 to 1000; on FIFO, also at most one per
   * message group). Each invocation runs up to the runtime's `concurrency` (10 by default) Data API
   * transactions at once, and each holds a database connection while it runs, so the cap is what
   * keeps a burst of messages from exhausting the cluster's connections and CPU.
   * @default 2 per ACU of `clusterMaxCapacity` (at least 2, at most 1000); no cap, with a synth
   * warning, when `clusterMaxCapacity` is not given
   */
  readonly maxConcurrency?: number;

  /**
   * Age of the oldest message at which the backlog alarm fires.
   * @default Duration.minutes(15)
   */
  readonly oldestMessageAgeThreshold?: Duration;

  /**
   * Reject (record with its reason and acknowledge, never apply) every message that has no
   * `idempotency-key` message attribute. A DLQ redrive gives a message a new messageId and, from a
   * FIFO DLQ, a new MessageDeduplicationId, so a message keyed by either would be applied again
   * after a redrive; the attribute is the only key that survives. Sets INBOX_REQUIRE_KEY_ATTRIBUTE,
   * the default of the runtime's `requireKeyAttribute` (a handler with its own `key` is not affected).
   * @default false: such messages are applied, counted as `keyFallback` (which has an alarm) and
   * warned of once per cold start
   */
  readonly requireIdempotencyKey?: boolean;
}
