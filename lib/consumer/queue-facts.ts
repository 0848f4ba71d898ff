import { Duration, Token } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AWS_LIMITS } from '../../functions/inbox/aws-limits.js';

/** What SQS gives a queue made without a setting (AWS's defaults, not the kit's). */
export const SQS_QUEUE_DEFAULTS = {
  retention: Duration.seconds(AWS_LIMITS.sqs.retentionSeconds.default),
  visibilityTimeout: Duration.seconds(AWS_LIMITS.sqs.visibilityTimeoutSeconds.default),
} as const;

/** What a construct knows of a queue at synth time; `undefined` where it cannot tell. */
export interface QueueFacts {
  readonly fifo: boolean;
  readonly visibilityTimeout: Duration | undefined;
  readonly retention: Duration | undefined;
  /** Whether failing messages move to a DLQ after some receives. */
  readonly hasRedrivePolicy: boolean | undefined;
}

function readSeconds(value: number | undefined, fallback: Duration): Duration | undefined {
  if (value === undefined) return fallback;
  return Token.isUnresolved(value) ? undefined : Duration.seconds(value);
}

/**
 * What can be read of a queue made elsewhere: a queue of this app exposes its CloudFormation
 * settings, an imported one only whether it is FIFO.
 *
 * @example
 * ```ts
 * queueFacts(new sqs.Queue(stack, 'Q', { visibilityTimeout: Duration.minutes(3) })).visibilityTimeout?.toSeconds() // 180
 * ```
 */
export function queueFacts(queue: sqs.IQueue): QueueFacts {
  const cfn = queue.node.defaultChild;
  if (!(cfn instanceof sqs.CfnQueue)) return { fifo: queue.fifo, visibilityTimeout: undefined, retention: undefined, hasRedrivePolicy: undefined };
  return {
    fifo: queue.fifo,
    visibilityTimeout: readSeconds(cfn.visibilityTimeout, SQS_QUEUE_DEFAULTS.visibilityTimeout),
    retention: readSeconds(cfn.messageRetentionPeriod, SQS_QUEUE_DEFAULTS.retention),
    hasRedrivePolicy: cfn.redrivePolicy !== undefined,
  };
}
