import type { Duration } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sources from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { CONSUMER_DEFAULTS } from '../shared/consumer-defaults.js';
import { queueFacts } from '../consumer/queue-facts.js';

/** The kinds of on-failure destination Lambda offers a Kafka event source. */
export type OnFailureKind = 'sqs' | 'sns' | 's3' | 'kafka' | 'other';

/** What the construct knows of the on-failure destination at synth time. */
export interface OnFailureFacts {
  readonly kind: OnFailureKind;
  /** Whether the construct makes it (the default SQS queue). */
  readonly madeHere: boolean;
  /**
   * Whether it holds the failed records themselves (Kafka, S3), from which they can be written
   * back to the topic for as long as it keeps them; an SQS or SNS destination gets only a notice
   * of the partition and offset range, which point into the topic.
   */
  readonly holdsRecords: boolean;
  /** Whether Lambda reaches it over the network from the pollers (an AWS service; a `KafkaDlq` topic is in the cluster). */
  readonly outsideCluster: boolean;
  /** An SQS queue given as `SqsDlq`, when one is. */
  readonly queue: sqs.IQueue | undefined;
  /** Whether an SQS queue or SNS topic is FIFO, which Lambda does not deliver to. */
  readonly fifo: boolean;
  /** How long an SQS queue keeps a notice, when that can be read; `undefined` otherwise. */
  readonly queueRetention: Duration | undefined;
  /** A `KafkaDlq` topic, without `kafka://`. */
  readonly kafkaTopic: string | undefined;
}

const stripKafkaScheme = (topic: string): string => (topic.startsWith('kafka://') ? topic.slice('kafka://'.length) : topic);

// No public way exists: SqsDlq, SnsDlq and KafkaDlq keep their queue, topic or topic name in a
// private field, and their one public member, bind(), needs the event source mapping (which the
// rules run before), grants the function access and returns only an ARN (a token, for a queue of
// this app). The field is read to refuse what Lambda would refuse at deploy (a FIFO destination,
// the consumed topic), to grant a Kafka topic's WriteData and to alarm on a queue.
const privateField = <T>(destination: lambda.IEventSourceDlq, field: string): T | undefined => Reflect.get(destination, field) as T | undefined;

/**
 * What can be read of an on-failure destination (`undefined`: the queue the construct makes).
 *
 * @example
 * ```ts
 * onFailureFacts(new SqsDlq(queue)).queueRetention?.toDays() // 14 for a queue of this app kept 14 days
 * ```
 */
export function onFailureFacts(destination: lambda.IEventSourceDlq | undefined): OnFailureFacts {
  const none = { madeHere: false, holdsRecords: false, outsideCluster: true, queue: undefined, fifo: false, queueRetention: undefined, kafkaTopic: undefined };
  if (destination === undefined) {
    return { ...none, kind: 'sqs', madeHere: true, queueRetention: CONSUMER_DEFAULTS.deadLetterRetention };
  }
  if (destination instanceof sources.SqsDlq) {
    const queue = privateField<sqs.IQueue>(destination, 'queue');
    if (queue === undefined) return { ...none, kind: 'sqs' };
    const facts = queueFacts(queue);
    return { ...none, kind: 'sqs', queue, fifo: facts.fifo, queueRetention: facts.retention };
  }
  if (destination instanceof sources.SnsDlq) {
    return { ...none, kind: 'sns', fifo: privateField<sns.ITopic>(destination, 'topic')?.fifo === true };
  }
  if (destination instanceof sources.S3OnFailureDestination) return { ...none, kind: 's3', holdsRecords: true };
  if (destination instanceof sources.KafkaDlq) {
    const topic = privateField<string>(destination, 'topicName');
    return { ...none, kind: 'kafka', holdsRecords: true, outsideCluster: false, kafkaTopic: topic === undefined ? undefined : stripKafkaScheme(topic) };
  }
  return { ...none, kind: 'other', holdsRecords: true };
}
