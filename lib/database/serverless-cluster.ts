import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as rds from 'aws-cdk-lib/aws-rds';
import { Validations } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { InboxDatabaseSettings } from './inbox-database-settings.js';

/** The owner's user name of the cluster `InboxDatabase` makes. */
const OWNER = 'inbox_admin';

/** A VPC with isolated subnets only (no NAT), for the cluster; the functions stay outside it. */
function isolatedVpc(scope: Construct, logRetention: logs.RetentionDays): ec2.Vpc {
  return new ec2.Vpc(scope, 'Vpc', {
    maxAzs: 2,
    natGateways: 0,
    subnetConfiguration: [{ name: 'database', subnetType: ec2.SubnetType.PRIVATE_ISOLATED, cidrMask: 24 }],
    flowLogs: {
      rejected: {
        trafficType: ec2.FlowLogTrafficType.REJECT,
        destination: ec2.FlowLogDestination.toCloudWatchLogs(new logs.LogGroup(scope, 'VpcFlowLogs', { retention: logRetention })),
      },
    },
  });
}

/**
 * The cluster `InboxDatabase` makes when it is given none: Aurora PostgreSQL Serverless v2 at the
 * pinned `engineVersion` with the Data API on, encrypted, a generated owner secret in Secrets
 * Manager, one writer with automatic minor version upgrades off (they would move the cluster past
 * the version the template names), pausing at 0 ACU when `minCapacity` is 0, in the isolated
 * subnets of `vpc` (a VPC of its own when none is given), backed up for `backupRetention`. The
 * cdk-nag findings it accepts are acknowledged on it, each with its reason.
 *
 * @example
 * ```ts
 * const cluster = serverlessCluster(this, settings);
 * ```
 */
export function serverlessCluster(scope: Construct, settings: InboxDatabaseSettings): rds.DatabaseCluster {
  const vpc = settings.props.vpc ?? isolatedVpc(scope, settings.logRetention);
  const cluster = new rds.DatabaseCluster(scope, 'Cluster', {
    engine: rds.DatabaseClusterEngine.auroraPostgres({ version: settings.engine }),
    credentials: rds.Credentials.fromGeneratedSecret(OWNER),
    defaultDatabaseName: settings.databaseName,
    writer: rds.ClusterInstance.serverlessV2('writer', { autoMinorVersionUpgrade: false }),
    serverlessV2MinCapacity: settings.minCapacity,
    serverlessV2MaxCapacity: settings.maxCapacity,
    serverlessV2AutoPauseDuration: settings.minCapacity === 0 ? settings.autoPause : undefined,
    enableDataApi: true,
    storageEncrypted: true,
    vpc,
    vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
    backup: { retention: settings.backupRetention },
    deletionProtection: settings.deletionProtection,
    removalPolicy: settings.removalPolicy,
  });
  acknowledgeClusterFindings(cluster);
  return cluster;
}

/**
 * The cdk-nag findings on a cluster only the kit's functions reach, through the Data API, and whose
 * owner secret they alone read: IAM database authentication (nothing signs in over the network) and
 * the owner secret's rotation.
 */
function acknowledgeClusterFindings(cluster: rds.DatabaseCluster): void {
  Validations.of(cluster).acknowledge({
    id: 'AwsSolutions-RDS6',
    reason: 'Nothing connects to the cluster with database credentials over the network: every caller uses the RDS Data API, '
      + 'which is authorized by IAM (the rds-data statement and transaction actions on the cluster ARN) and signs in with a Secrets Manager secret.',
  });
  // The generated DatabaseSecret; cluster.secret is its attachment to the cluster.
  Validations.of(cluster.node.findChild('Secret')).acknowledge({
    id: 'AwsSolutions-SMG4',
    reason: 'The owner\'s secret is read only by the migrate function and by each role rotation\'s setSecret. A Lambda rotation of it '
      + 'needs a function inside the VPC that reaches Secrets Manager, i.e. a NAT gateway or an interface endpoint (about 15 USD a month '
      + 'for two AZs), which a pausing cluster avoids; the role secrets the consumers use are rotated, through the Data API.',
  });
}
