import { Annotations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * The ids of the warnings the constructs give at synth time, each for one thing they cannot check
 * or advise against. An id is stable, so a stack that has weighed a warning acknowledges it by name.
 *
 * @example
 * ```ts
 * Annotations.of(orders).acknowledgeWarning(INBOX_WARNINGS.clusterOwnerSecret, 'a development stack: the owner signs in');
 * ```
 */
export const INBOX_WARNINGS = {
  /** The function signs in with the cluster's own secret: the owner's credentials. */
  clusterOwnerSecret: '@sqs-inbox/cdk:clusterOwnerSecret',
  /** No cluster capacity (nor a cap of its own) was given, so the event source has no concurrency cap. */
  clusterCapacityUnknown: '@sqs-inbox/cdk:clusterCapacityUnknown',
  /** The consumers of one cluster may together run more invocations than its capacity takes. */
  clusterConcurrencyExceeded: '@sqs-inbox/cdk:clusterConcurrencyExceeded',
  /** An imported queue's redrive policy cannot be read at synth time. */
  importedQueueRedrivePolicy: '@sqs-inbox/cdk:importedQueueRedrivePolicy',
  /** A queue's retention cannot be read at synth time (an imported queue). */
  queueRetentionUnknown: '@sqs-inbox/cdk:queueRetentionUnknown',
  /** A Kafka on-failure destination that keeps the failed records (a Kafka topic, S3) keeps them for a time the construct cannot read. */
  onFailureRetentionUnknown: '@sqs-inbox/cdk:onFailureRetentionUnknown',
  /** Lambda sends failures from the Kafka cluster's VPC, and nothing says that VPC reaches the destination's service. */
  onFailureUnreachable: '@sqs-inbox/cdk:onFailureUnreachable',
} as const;

/** One of the warning ids. */
export type InboxWarning = (typeof INBOX_WARNINGS)[keyof typeof INBOX_WARNINGS];

/**
 * Adds the warning `id` to `scope`, once.
 *
 * @example
 * ```ts
 * warn(this, INBOX_WARNINGS.queueRetentionUnknown, 'The imported dead-letter queue\'s retention cannot be read ...');
 * ```
 */
export function warn(scope: IConstruct, id: InboxWarning, text: string): void {
  Annotations.of(scope).addWarningV2(id, text);
}
