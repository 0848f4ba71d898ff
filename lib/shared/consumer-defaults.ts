import { Duration } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import { METRICS_SCHEMA, TIME_DEFAULTS } from '../../functions/inbox/contract.js';

/**
 * Every default the consumers share, in one place; each source's own are in its settings.
 *
 * @example
 * ```ts
 * template.hasResourceProperties('AWS::Lambda::Function', { Timeout: CONSUMER_DEFAULTS.timeout.toSeconds() });
 * ```
 */
export const CONSUMER_DEFAULTS = {
  handler: 'handler',
  timeout: Duration.seconds(30),
  memorySize: 256,
  logRetention: logs.RetentionDays.ONE_MONTH,
  /**
   * 25 days: the longest a message of the default SQS queues can come back is the queue's 4 days,
   * the DLQ's 14, and 4 more in the queue after a redrive (22 days); the 3 days on top cover a
   * daily cleanup that runs late or fails a day. A Kafka topic kept 7 days needs 14.
   */
  inboxRetention: Duration.days(25),
  metricsNamespace: METRICS_SCHEMA.defaultNamespace,
  duplicateRateThreshold: 0.1,
  /** Failures are transient (the runtime retries in place first): more than 1 in 20 is not noise. */
  failedRateThreshold: 0.05,
  /** Leaves 30 % of a dead-lettered message's time for someone to redrive it after the alarm. */
  deadLetterAgeThreshold: 0.7,
  /** Concurrent invocations per ACU of the cluster's maximum capacity (see `clusterMaxCapacity`). */
  invocationsPerAcu: 2,
  /** The longest SQS allows, so a dead-lettered message or failure notice waits as long as it can. */
  deadLetterRetention: Duration.days(14),
  /** The shortest function timeout: the runtime's deadline margin plus one claim's lock wait. */
  minimumTimeout: Duration.millis(TIME_DEFAULTS.deadlineMarginMs + TIME_DEFAULTS.lockTimeoutMs),
} as const;
