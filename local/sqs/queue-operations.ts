import type { Input, Operation, OperationContext } from './operation-context.js';
import { queueOf } from './operation-context.js';
import { renderSettings } from './queue-attributes.js';
import { invalidAttributeName, missingParameter, queueDoesNotExist } from './sqs-errors.js';

const COUNT_ATTRIBUTES = ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'] as const;
const QUEUE_ATTRIBUTE_NAMES = new Set([
  'All', 'QueueArn', 'CreatedTimestamp', 'LastModifiedTimestamp', ...COUNT_ATTRIBUTES, 'VisibilityTimeout', 'MessageRetentionPeriod',
  'ReceiveMessageWaitTimeSeconds', 'DelaySeconds', 'MaximumMessageSize', 'RedrivePolicy', 'FifoQueue', 'ContentBasedDeduplication',
  'DeduplicationScope', 'FifoThroughputLimit', 'Policy', 'KmsMasterKeyId', 'KmsDataKeyReusePeriodSeconds', 'SqsManagedSseEnabled', 'RedriveAllowPolicy',
]);

export const createQueue: Operation = (input: Input, context: OperationContext) => {
  if (input['QueueName'] === undefined || input['QueueName'] === '') throw missingParameter('QueueName');
  const queue = context.queues.create(input['QueueName'], input['Attributes'], context.now());
  return { QueueUrl: queue.url };
};

export const getQueueUrl: Operation = (input, context) => {
  if (input['QueueName'] === undefined || input['QueueName'] === '') throw missingParameter('QueueName');
  const owner = input['QueueOwnerAWSAccountId'];
  if (owner !== undefined && owner !== context.accountId) throw queueDoesNotExist();
  return { QueueUrl: context.queues.named(input['QueueName']).url };
};

export const getQueueAttributes: Operation = (input, context) => {
  const queue = queueOf(input, context);
  const requested = Array.isArray(input['AttributeNames']) ? (input['AttributeNames'] as unknown[]) : [];
  for (const name of requested) {
    if (typeof name !== 'string' || !QUEUE_ATTRIBUTE_NAMES.has(name)) throw invalidAttributeName(String(name));
  }
  const counts = queue.counts(context.now());
  const seconds = String(Math.floor(queue.createdAt / 1000));
  const all: Record<string, string> = {
    QueueArn: queue.arn,
    ApproximateNumberOfMessages: String(counts.visible),
    ApproximateNumberOfMessagesNotVisible: String(counts.notVisible),
    ApproximateNumberOfMessagesDelayed: String(counts.delayed),
    CreatedTimestamp: seconds,
    LastModifiedTimestamp: seconds,
    ...renderSettings(queue.settings),
  };
  const names = requested.includes('All') ? Object.keys(all) : (requested as string[]);
  const attributes = Object.fromEntries(names.filter((name) => all[name] !== undefined).map((name) => [name, all[name]!]));
  return Object.keys(attributes).length === 0 ? {} : { Attributes: attributes };
};

export const purgeQueue: Operation = (input, context) => {
  queueOf(input, context).purge(context.now());
  return {};
};
