import { Validations } from 'aws-cdk-lib';
import type * as rds from 'aws-cdk-lib/aws-rds';

/** The parts of the reference stack whose cdk-nag findings the stack itself accepts, and why they are there. */
export interface InboxStackFindings {
  /** The stack's own cluster (InboxDatabase acknowledges what it makes itself). */
  readonly cluster: rds.DatabaseCluster;
  /** The context setting: the deletion protection finding is accepted only when it is off. */
  readonly deletionProtection: boolean;
}

/**
 * Acknowledges the cdk-nag AwsSolutions findings on the reference stack's own cluster, each with
 * its reason. The constructs acknowledge what they make (InboxDatabase its migrations provider and
 * cleanup DLQ, RoleSecretRotation its two wildcards); everything else cdk-nag would flag is fixed
 * instead (own log groups and roles, no managed policies, flow logs, TLS-only encrypted queues,
 * rotated role secrets).
 *
 * @example
 * ```ts
 * suppressInboxStackFindings({ cluster, deletionProtection: false });
 * ```
 */
export function suppressInboxStackFindings(findings: InboxStackFindings): void {
  const { cluster } = findings;
  // The generated DatabaseSecret; cluster.secret is its attachment to the cluster.
  Validations.of(cluster.node.findChild('Secret')).acknowledge({
    id: 'AwsSolutions-SMG4',
    reason: 'The owner\'s secret is read only by the migrate function and the role rotations\' setSecret. Rotating it needs a rotation Lambda '
      + 'inside the VPC that reaches Secrets Manager, i.e. a NAT gateway or an interface endpoint (about 15 USD a month for two AZs), which '
      + 'the pausing reference stack avoids. Rotate with `aws secretsmanager rotate-secret` after adding an endpoint, or add '
      + 'cluster.addRotationSingleUser() in a stack that has one.',
  });
  Validations.of(cluster).acknowledge({
    id: 'AwsSolutions-RDS6',
    reason: 'The reference stack\'s functions (the order worker, the migrations, the cleanup and the rotations) are its only database clients, '
      + 'and each reaches the cluster through the RDS Data API, under IAM (rds-data actions on the cluster ARN) and a secret of its own: '
      + 'no client signs in over the network, so there is nothing for IAM database authentication to guard.',
  });
  if (!findings.deletionProtection) {
    Validations.of(cluster).acknowledge({
      id: 'AwsSolutions-RDS10',
      reason: 'Deletion protection comes from the deletionProtection context key: off for this stage so `cdk destroy` works; '
        + 'set -c deletionProtection=true for a stage whose data matters.',
    });
  }
}
