import { Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * Acknowledges the one cdk-nag AwsSolutions finding the reference stack accepts of its own: the
 * cluster's deletion protection, off when the context says so (a development stage that
 * `cdk destroy` must be able to remove). The constructs acknowledge what they make themselves
 * (InboxDatabase the cluster's IAM authentication and owner secret, its migrations provider and
 * cleanup DLQ; InboxOutbox its relay schedule's DLQ; RoleSecretRotation its two wildcards); everything else cdk-nag would flag is fixed
 * instead (own log groups and roles, no managed policies, flow logs, TLS-only encrypted queues,
 * rotated role secrets).
 *
 * @example
 * ```ts
 * if (!config.deletionProtection) acknowledgeDeletionProtectionOff(database.cluster);
 * ```
 */
export function acknowledgeDeletionProtectionOff(cluster: IConstruct): void {
  Validations.of(cluster).acknowledge({
    id: 'AwsSolutions-RDS10',
    reason: 'Deletion protection comes from the deletionProtection context key: off for this stage so `cdk destroy` works; '
      + 'set -c deletionProtection=true for a stage whose data matters.',
  });
}
