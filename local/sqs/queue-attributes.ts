import { AWS_LIMITS } from '../../functions/inbox/internal.js';
import { invalidAttributeName, invalidAttributeValue, invalidParameterValue } from './sqs-errors.js';

/** Where a queue's messages go after `maxReceiveCount` receives. */
export interface RedrivePolicy {
  readonly deadLetterTargetArn: string;
  readonly maxReceiveCount: number;
}

/** The attributes of a queue that the emulator acts on, after defaults and checks. */
export interface QueueSettings {
  readonly fifo: boolean;
  readonly contentBasedDeduplication: boolean;
  readonly visibilityTimeout: number;
  readonly messageRetentionPeriod: number;
  readonly receiveMessageWaitTimeSeconds: number;
  readonly delaySeconds: number;
  readonly maximumMessageSize: number;
  readonly redrivePolicy: RedrivePolicy | undefined;
  /** Attributes SQS takes but the emulator only stores and returns (Policy, KMS, SSE, tags of access). */
  readonly stored: Readonly<Record<string, string>>;
}

/** Defaults of SQS for a new queue. */
export const QUEUE_DEFAULTS = {
  visibilityTimeout: AWS_LIMITS.sqs.visibilityTimeoutSeconds.default,
  messageRetentionPeriod: AWS_LIMITS.sqs.retentionSeconds.default,
  receiveMessageWaitTimeSeconds: AWS_LIMITS.sqs.waitTimeSeconds.default,
  delaySeconds: AWS_LIMITS.sqs.delaySeconds.default,
  maximumMessageSize: AWS_LIMITS.sqs.messageBytes.default,
} as const;

const RANGES = {
  VisibilityTimeout: AWS_LIMITS.sqs.visibilityTimeoutSeconds,
  MessageRetentionPeriod: AWS_LIMITS.sqs.retentionSeconds,
  ReceiveMessageWaitTimeSeconds: AWS_LIMITS.sqs.waitTimeSeconds,
  DelaySeconds: AWS_LIMITS.sqs.delaySeconds,
  MaximumMessageSize: AWS_LIMITS.sqs.messageBytes,
} as const;

const STORED_ONLY = new Set(['Policy', 'KmsMasterKeyId', 'KmsDataKeyReusePeriodSeconds', 'SqsManagedSseEnabled', 'RedriveAllowPolicy']);
// FIFO-only attributes whose other values change delivery; the emulator models the defaults only.
const FIFO_FIXED: Readonly<Record<string, string>> = { DeduplicationScope: 'queue', FifoThroughputLimit: 'perQueue' };
const QUEUE_NAME = /^[A-Za-z0-9_-]{1,80}$/;

function wholeNumber(name: keyof typeof RANGES, value: string): number {
  const { min, max } = RANGES[name];
  const number = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(number) || number < min || number > max) throw invalidAttributeValue(name, `must be a whole number from ${min} to ${max}, but "${value}" was given.`);
  return number;
}

function flag(name: string, value: string): boolean {
  if (value !== 'true' && value !== 'false') throw invalidAttributeValue(name, `must be "true" or "false", but "${value}" was given.`);
  return value === 'true';
}

function parseRedrivePolicy(value: string): RedrivePolicy {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw invalidParameterValue(`Value ${value} for parameter RedrivePolicy is invalid. Reason: Redrive policy is not a valid JSON map.`);
  }
  const policy = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  const arn = policy['deadLetterTargetArn'];
  const count = typeof policy['maxReceiveCount'] === 'string' ? Number(policy['maxReceiveCount']) : policy['maxReceiveCount'];
  if (typeof arn !== 'string' || !arn.startsWith('arn:')) {
    throw invalidParameterValue(`Value ${value} for parameter RedrivePolicy is invalid. Reason: Redrive policy does not contain mandatory attribute: deadLetterTargetArn.`);
  }
  const { min, max } = AWS_LIMITS.sqs.maxReceiveCount;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < min || count > max) {
    throw invalidParameterValue(`Value ${value} for parameter RedrivePolicy is invalid. Reason: Invalid value for maxReceiveCount: ${String(policy['maxReceiveCount'])}, valid values are from ${min} to ${max} both inclusive.`);
  }
  return { deadLetterTargetArn: arn, maxReceiveCount: count };
}

/**
 * Checks a queue name: 1 to 80 letters, digits, hyphens and underscores, with `.fifo` at the end
 * exactly when the queue is FIFO.
 *
 * @example
 * ```ts
 * checkQueueName('orders.fifo', true); // ok
 * ```
 */
export function checkQueueName(name: unknown, fifo: boolean): string {
  const base = typeof name === 'string' && fifo && name.endsWith('.fifo') ? name.slice(0, -'.fifo'.length) : name;
  if (typeof name !== 'string' || typeof base !== 'string' || !QUEUE_NAME.test(base) || name.length > 80 || (!fifo && name.endsWith('.fifo'))) {
    throw invalidParameterValue(fifo || (typeof name === 'string' && name.endsWith('.fifo'))
      ? 'The name of a FIFO queue can only include alphanumeric characters, hyphens, or underscores, must end with .fifo suffix and be 1 to 80 in length.'
      : 'Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length');
  }
  return name;
}

/**
 * Reads CreateQueue's `Attributes` map into the settings the emulator acts on, refusing unknown
 * names (InvalidAttributeName) and values out of SQS's ranges (InvalidAttributeValue).
 * ContentBasedDeduplication, DeduplicationScope and FifoThroughputLimit exist on FIFO queues only.
 *
 * @example
 * ```ts
 * parseQueueAttributes({ FifoQueue: 'true', VisibilityTimeout: '1' }).visibilityTimeout // 1
 * ```
 */
export function parseQueueAttributes(raw: unknown): QueueSettings {
  const attributes = (raw ?? {}) as Record<string, unknown>;
  if (typeof attributes !== 'object' || Array.isArray(attributes)) throw invalidParameterValue('Attributes must be a map of attribute name to string value.');
  for (const [name, value] of Object.entries(attributes)) {
    if (typeof value !== 'string') throw invalidAttributeValue(name, 'attribute values are strings.');
  }
  const values = attributes as Record<string, string>;
  const fifo = values['FifoQueue'] !== undefined && flag('FifoQueue', values['FifoQueue']);
  const settings = {
    fifo,
    contentBasedDeduplication: false,
    visibilityTimeout: QUEUE_DEFAULTS.visibilityTimeout as number,
    messageRetentionPeriod: QUEUE_DEFAULTS.messageRetentionPeriod as number,
    receiveMessageWaitTimeSeconds: QUEUE_DEFAULTS.receiveMessageWaitTimeSeconds as number,
    delaySeconds: QUEUE_DEFAULTS.delaySeconds as number,
    maximumMessageSize: QUEUE_DEFAULTS.maximumMessageSize as number,
    redrivePolicy: undefined as RedrivePolicy | undefined,
    stored: {} as Record<string, string>,
  };
  for (const [name, value] of Object.entries(values)) {
    switch (name) {
      case 'FifoQueue': break;
      case 'VisibilityTimeout': settings.visibilityTimeout = wholeNumber(name, value); break;
      case 'MessageRetentionPeriod': settings.messageRetentionPeriod = wholeNumber(name, value); break;
      case 'ReceiveMessageWaitTimeSeconds': settings.receiveMessageWaitTimeSeconds = wholeNumber(name, value); break;
      case 'DelaySeconds': settings.delaySeconds = wholeNumber(name, value); break;
      case 'MaximumMessageSize': settings.maximumMessageSize = wholeNumber(name, value); break;
      case 'RedrivePolicy': settings.redrivePolicy = parseRedrivePolicy(value); break;
      case 'ContentBasedDeduplication':
        if (!fifo) throw invalidAttributeName(name);
        settings.contentBasedDeduplication = flag(name, value);
        break;
      case 'DeduplicationScope':
      case 'FifoThroughputLimit':
        if (!fifo) throw invalidAttributeName(name);
        if (value !== FIFO_FIXED[name]) throw invalidAttributeValue(name, `the local emulator models only ${name}=${FIFO_FIXED[name]}, but "${value}" was given.`);
        settings.stored[name] = value;
        break;
      default:
        if (!STORED_ONLY.has(name)) throw invalidAttributeName(name);
        settings.stored[name] = value;
    }
  }
  return settings;
}

/**
 * The settings as GetQueueAttributes shows them: every value a string, RedrivePolicy as JSON with
 * a number for maxReceiveCount, FIFO attributes on FIFO queues only.
 *
 * @example
 * ```ts
 * renderSettings(parseQueueAttributes({})).VisibilityTimeout // '30'
 * ```
 */
export function renderSettings(settings: QueueSettings): Record<string, string> {
  const rendered: Record<string, string> = {
    VisibilityTimeout: String(settings.visibilityTimeout),
    MessageRetentionPeriod: String(settings.messageRetentionPeriod),
    ReceiveMessageWaitTimeSeconds: String(settings.receiveMessageWaitTimeSeconds),
    DelaySeconds: String(settings.delaySeconds),
    MaximumMessageSize: String(settings.maximumMessageSize),
    ...settings.stored,
  };
  if (settings.redrivePolicy !== undefined) rendered['RedrivePolicy'] = JSON.stringify(settings.redrivePolicy);
  if (settings.fifo) {
    rendered['FifoQueue'] = 'true';
    rendered['ContentBasedDeduplication'] = String(settings.contentBasedDeduplication);
  }
  return rendered;
}
