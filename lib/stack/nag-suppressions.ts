import { Stack, Validations } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as rds from 'aws-cdk-lib/aws-rds';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';

/** The parts of the reference stack whose cdk-nag findings are accepted, and why they are there. */
export interface InboxStackFindings {
  readonly cluster: rds.DatabaseCluster;
  /** The secrets of the functions' database roles, by role. */
  readonly roleSecrets: readonly { readonly role: string; readonly secret: secretsmanager.Secret }[];
  readonly migrateFunction: lambda.Function;
  readonly providerRole: iam.Role;
  /** The dead-letter queue of the cleanup schedule's target. */
  readonly cleanupScheduleDeadLetterQueue: sqs.Queue;
  /** The context setting: the deletion protection finding is accepted only when it is off. */
  readonly deletionProtection: boolean;
}

/**
 * Acknowledges the cdk-nag AwsSolutions findings the reference stack accepts, each on the one
 * construct it concerns and with its reason. Everything else cdk-nag would flag is fixed in the
 * stack instead (own log groups and roles, no managed policies, flow logs, TLS-only encrypted queues).
 *
 * @example
 * ```ts
 * suppressInboxStackFindings({ cluster, roleSecrets, migrateFunction, providerRole, cleanupScheduleDeadLetterQueue, deletionProtection: false });
 * ```
 */
export function suppressInboxStackFindings(findings: InboxStackFindings): void {
  const { cluster, migrateFunction, providerRole } = findings;
  // The generated DatabaseSecret; cluster.secret is its attachment to the cluster.
  Validations.of(cluster.node.findChild('Secret')).acknowledge({
    id: 'AwsSolutions-SMG4',
    reason: 'Rotation needs a rotation Lambda inside the VPC that reaches Secrets Manager, i.e. a NAT gateway or an interface '
      + 'endpoint (about 15 USD a month for two AZs), which the pausing reference stack avoids. Rotate with '
      + '`aws secretsmanager rotate-secret` after adding an endpoint, or add cluster.addRotationSingleUser() in a stack that has one.',
  });
  for (const { role, secret } of findings.roleSecrets) {
    Validations.of(secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: `The password of database role ${role} is not rotated: a rotation Lambda would have to reach Secrets Manager and the `
        + 'database from the VPC (a NAT gateway or interface endpoint the pausing stack avoids) and set the role\'s password itself. '
        + `The migrate function sets ${role}'s password from this secret each time it runs (a deploy that changes the migrations, `
        + 'the cluster or the role secrets).',
    });
  }
  Validations.of(cluster).acknowledge({
    id: 'AwsSolutions-RDS6',
    reason: 'Nothing connects to the cluster with database credentials over the network: every caller uses the RDS Data API, '
      + 'which is authorized by IAM (the rds-data statement and transaction actions on the cluster ARN) and signs in with a Secrets Manager secret.',
  });
  if (!findings.deletionProtection) {
    Validations.of(cluster).acknowledge({
      id: 'AwsSolutions-RDS10',
      reason: 'Deletion protection comes from the deletionProtection context key: off for this stage so `cdk destroy` works; '
        + 'set -c deletionProtection=true for a stage whose data matters.',
    });
  }
  Validations.of(findings.cleanupScheduleDeadLetterQueue).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason: "This queue is itself a dead-letter queue: the cleanup schedule's target DLQ, where EventBridge puts a run it could not invoke "
      + 'after its retries (an alarm watches for that). Nothing consumes it with a redrive policy, so it needs no DLQ of its own.',
  });
  const migrateLogicalId = Stack.of(migrateFunction).getLogicalId(migrateFunction.node.defaultChild as lambda.CfnFunction);
  Validations.of(providerRole).acknowledge({
    id: `AwsSolutions-IAM5[Resource::<${migrateLogicalId}.Arn>:*]`,
    reason: "The CDK Provider framework grants itself lambda:InvokeFunction on the migrate function's ARN and its qualified "
      + 'ARNs (versions and aliases): the wildcard covers only that one function.',
  });
}
