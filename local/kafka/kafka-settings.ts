import { randomUUID } from 'node:crypto';
import { AWS_LIMITS, withDefaults } from '../../functions/inbox/internal.js';
import { LocalConfigError } from '../errors.js';
import { FUNCTION_NAME } from '../event-source/index.js';
import { settingChecks } from '../setting-checks.js';
import type { KafkaEventOrigin } from './kafka-event.js';
import type { KafkaEventSourceFaults, StartKafkaEventSourceOptions } from './kafka-event-source-types.js';
import { KafkaLog } from './kafka-log.js';
import type { FailedFunction, KafkaOnFailureDestination } from './on-failure-destination.js';

const DEFAULTS = {
  eventSource: 'aws:kafka',
  startingPosition: 'TRIM_HORIZON',
  batchSize: 100,
  maxBatchingWindowMs: 500,
  pollers: 1,
  functionTimeoutMs: 30_000,
  reportBatchItemFailures: true,
  maximumRetryAttempts: -1,
  retryDelayMs: 100,
  functionName: 'local-function',
  faults: {} as KafkaEventSourceFaults,
  onBatch: () => undefined,
  onError: (error: unknown, during: string) => console.warn(`kafka event source: ${during} failed`, error),
} as const;
const { batchSize: BATCH_SIZE, batchingWindowSeconds: BATCHING_WINDOW_SECONDS, retryAttempts: RETRY_ATTEMPTS } = AWS_LIMITS.lambdaKafka;

/** The options of a Kafka event source with their defaults, checked, and what follows from them. */
export type KafkaSettings = Required<Omit<StartKafkaEventSourceOptions, 'onFailureDestination'>> & {
  readonly onFailureDestination: KafkaOnFailureDestination | undefined;
  /** Retries of a failing position before it is given up; -1 for ever. */
  readonly retryLimit: number;
  /** Where the events say they come from. */
  readonly origin: KafkaEventOrigin;
  /** The function the on-failure documents name. */
  readonly fn: FailedFunction;
};

function checkDestination(log: KafkaLog, topic: string, destination: KafkaOnFailureDestination | undefined): void {
  if (destination?.type === 'kafka') {
    log.partitions(destination.topic);
    if (destination.topic === topic) throw new LocalConfigError(`The on-failure destination topic cannot be the source topic "${topic}": Lambda refuses the loop.`);
  } else if (destination?.type === 'sqs') {
    if (typeof destination.client?.send !== 'function' || typeof destination.queueUrl !== 'string' || destination.queueUrl === '') {
      throw new LocalConfigError('An SQS on-failure destination needs an SQSClient and a queueUrl.');
    }
  } else if (destination !== undefined) {
    throw new LocalConfigError(`onFailureDestination must be { type: 'sqs', client, queueUrl } or { type: 'kafka', topic }, but ${JSON.stringify(destination)} was given.`);
  }
}

/**
 * The settings of `startKafkaEventSource`, after the checks Lambda's CreateEventSourceMapping makes
 * (and those the local log needs: the topic and a Kafka destination topic exist).
 *
 * @example
 * ```ts
 * kafkaSettings({ log, topic: 'orders', handler }).retryLimit // -1: retried for ever
 * ```
 */
export function kafkaSettings(options: StartKafkaEventSourceOptions): KafkaSettings {
  const settings = withDefaults(DEFAULTS, options);
  const { log, topic, onFailureDestination: destination } = settings;
  if (!(log instanceof KafkaLog)) throw new LocalConfigError('log must be a KafkaLog.');
  log.partitions(topic);
  const consumerGroupId = settings.consumerGroupId ?? randomUUID();
  const check = settingChecks({ ...settings, consumerGroupId });
  check.callable('handler', '(event, context) => Promise<KafkaBatchResponse | void>');
  check.oneOf('eventSource', ['aws:kafka', 'SelfManagedKafka']);
  check.oneOf('startingPosition', ['TRIM_HORIZON', 'LATEST']);
  check.matches('functionName', FUNCTION_NAME.pattern, FUNCTION_NAME.described);
  check.matches('consumerGroupId', AWS_LIMITS.lambdaKafka.consumerGroupId, '1 to 200 letters, digits or - / * : _ + = . @');
  check.whole('batchSize', BATCH_SIZE.min, BATCH_SIZE.max);
  check.whole('maxBatchingWindowMs', BATCHING_WINDOW_SECONDS.min * 1000, BATCHING_WINDOW_SECONDS.max * 1000);
  check.whole('pollers', 1, 100);
  check.whole('functionTimeoutMs', 1, AWS_LIMITS.lambdaKafka.functionTimeoutSeconds.max * 1000);
  check.whole('maximumRetryAttempts', RETRY_ATTEMPTS.min, RETRY_ATTEMPTS.max);
  check.whole('retryDelayMs', 0, 60_000);
  checkDestination(log, topic, destination);
  return {
    ...settings,
    onFailureDestination: destination,
    consumerGroupId,
    retryLimit: settings.maximumRetryAttempts === -1 && destination !== undefined ? AWS_LIMITS.lambdaKafka.retriesWithDestination : settings.maximumRetryAttempts,
    origin: { eventSource: settings.eventSource, clusterArn: log.clusterArn, bootstrapServers: log.bootstrapServers },
    fn: { arn: `arn:aws:lambda:${log.region}:${log.accountId}:function:${settings.functionName}` },
  };
}
