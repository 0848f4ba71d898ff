import { fileURLToPath } from 'node:url';
import { CfnOutput, Duration, Stack } from 'aws-cdk-lib';
import type { StackProps } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as events from 'aws-cdk-lib/aws-events';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as rds from 'aws-cdk-lib/aws-rds';
import type { Construct } from 'constructs';
import { AlarmTopic, AURORA_POSTGRES_VERSION, InboxConsumer, InboxDashboard, InboxDatabase } from '../index.js';
import { suppressInboxStackFindings } from './nag-suppressions.js';
import type { InboxStackConfig } from './stack-config.js';

const fromRoot = (relative: string): string => fileURLToPath(new URL(`../../${relative}`, import.meta.url));

/** Where the stack finds its code and SQL; the repository's own files unless a test says otherwise. */
export interface InboxStackSources {
  /** @default functions/order-worker/index.ts */
  readonly workerEntry?: string;
  /** @default migrations/ (the example app's own migrations: its tables and their grants) */
  readonly migrationsDir?: string;
}

/** What the reference stack takes. */
export interface InboxStackProps extends StackProps {
  /** Settings from context: `stackConfigFromContext(app.node)`. */
  readonly config: InboxStackConfig;
  /**
   * Paths of the code and migrations.
   * @default the repository's files
   */
  readonly sources?: InboxStackSources;
}

/** The database the inbox and the example's tables live in. */
const DATABASE_NAME = 'inbox';

/**
 * The reference deployment, built only from what `sqs-inbox/cdk` exports (and aws-cdk-lib), as a
 * project using the package would build it: an Aurora PostgreSQL Serverless v2 cluster of its own
 * (Data API on, pausing at 0 ACU, encrypted, credentials in Secrets Manager) in isolated subnets of a
 * VPC with no NAT; an `InboxDatabase` on it that runs the kit's migrations and the app's
 * (`migrations/`: the example's tables and their grants to the worker's role), gives the order
 * worker and the cleanup a database role each, with a secret only its function may read, rotated
 * every 30 days, and runs the cleanup on a schedule; the order worker as an `InboxConsumer` on a
 * FIFO queue, outside the VPC, attached to that database (its role: `order_worker`); one alarm topic
 * for every alarm (with an e-mail subscription when `alarmEmail` is set); a dashboard; and outputs
 * for the queue URLs, the cluster ARN, the owner's secret ARN and the alarm topic.
 *
 * @example
 * ```ts
 * const app = new App();
 * const config = stackConfigFromContext(app.node);
 * new InboxStack(app, `SqsInbox-${config.stage}`, { config });
 * ```
 */
export class InboxStack extends Stack {
  public readonly cluster: rds.DatabaseCluster;
  /** The database side: migrations, roles and their secrets, the cleanup. */
  public readonly database: InboxDatabase;
  public readonly orderWorker: InboxConsumer;
  /** The encrypted, TLS-only SNS topic every alarm of the stack notifies. */
  public readonly alarmTopic: AlarmTopic;

  public constructor(scope: Construct, id: string, props: InboxStackProps) {
    super(scope, id, props);
    const { config } = props;
    const sources = {
      workerEntry: fromRoot('functions/order-worker/index.ts'),
      migrationsDir: fromRoot('migrations'),
      ...props.sources,
    };
    const metricsNamespace = `SqsInbox/${config.stage}`;
    const retention = Duration.days(config.retentionDays);

    this.cluster = this.makeCluster(config, this.makeNetwork());
    this.alarmTopic = new AlarmTopic(this, 'Alarms', { email: config.alarmEmail, removalPolicy: config.removalPolicy });
    this.database = new InboxDatabase(this, 'Inbox', {
      cluster: this.cluster,
      migrations: sources.migrationsDir,
      cleanupRetention: retention,
      cleanupSchedule: events.Schedule.expression(config.cleanupSchedule),
      cleanupBatchSize: config.cleanupBatchSize,
      metricsNamespace,
      alarmTopic: this.alarmTopic.topic,
    });
    this.orderWorker = new InboxConsumer(this, 'OrderWorker', {
      database: this.database,
      entry: sources.workerEntry,
      queueProps: { fifo: true },
      // The producer (sendMessages) always sends the idempotency-key attribute, the one key a redrive keeps.
      requireIdempotencyKey: true,
      serviceName: 'order-worker',
      metricsNamespace,
      inboxRetention: retention,
      alarmTopic: this.alarmTopic.topic,
    });

    const dashboard = new InboxDashboard(this, 'Dashboard', {
      consumers: [this.orderWorker],
      dashboardName: `sqs-inbox-${config.stage}`,
      extraAlarms: Object.values(this.database.cleanupAlarms),
    });
    this.makeOutputs(dashboard);
    suppressInboxStackFindings({ cluster: this.cluster, deletionProtection: config.deletionProtection });
  }

  /** A VPC with isolated subnets only (no NAT), for the cluster; the functions stay outside it. */
  private makeNetwork(): ec2.Vpc {
    return new ec2.Vpc(this, 'Vpc', {
      maxAzs: 2,
      natGateways: 0,
      subnetConfiguration: [{ name: 'database', subnetType: ec2.SubnetType.PRIVATE_ISOLATED, cidrMask: 24 }],
      flowLogs: {
        rejected: {
          trafficType: ec2.FlowLogTrafficType.REJECT,
          destination: ec2.FlowLogDestination.toCloudWatchLogs(new logs.LogGroup(this, 'VpcFlowLogs', { retention: logs.RetentionDays.ONE_MONTH })),
        },
      },
    });
  }

  /**
   * The cluster, made here and handed to `InboxDatabase` (which could make one itself) so that it
   * keeps the place in the template it had before `InboxDatabase` existed: a deployed stack keeps
   * its database. The engine version is the kit's pinned `AURORA_POSTGRES_VERSION`, with the
   * writer's automatic minor version upgrades off: with them on, AWS would move the cluster past
   * that version in a maintenance window, and a later deploy that still names it would ask for a
   * downgrade and fail.
   */
  private makeCluster(config: InboxStackConfig, vpc: ec2.IVpc): rds.DatabaseCluster {
    return new rds.DatabaseCluster(this, 'Database', {
      engine: rds.DatabaseClusterEngine.auroraPostgres({ version: AURORA_POSTGRES_VERSION }),
      credentials: rds.Credentials.fromGeneratedSecret('inbox_admin'),
      defaultDatabaseName: DATABASE_NAME,
      writer: rds.ClusterInstance.serverlessV2('writer', { autoMinorVersionUpgrade: false }),
      serverlessV2MinCapacity: config.minCapacity,
      serverlessV2MaxCapacity: config.maxCapacity,
      serverlessV2AutoPauseDuration: config.minCapacity === 0 ? config.autoPause : undefined,
      enableDataApi: true,
      storageEncrypted: true,
      vpc,
      vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
      backup: { retention: Duration.days(7) },
      deletionProtection: config.deletionProtection,
      removalPolicy: config.removalPolicy,
    });
  }

  private makeOutputs(dashboard: InboxDashboard): void {
    new CfnOutput(this, 'QueueUrl', { value: this.orderWorker.queue.queueUrl, description: 'FIFO queue of the order worker' });
    new CfnOutput(this, 'DeadLetterQueueUrl', { value: this.orderWorker.deadLetterQueue!.queueUrl, description: 'Its dead-letter queue' });
    new CfnOutput(this, 'ClusterArn', { value: this.cluster.clusterArn, description: 'Aurora cluster (Data API resource ARN)' });
    new CfnOutput(this, 'SecretArn', { value: this.database.ownerSecret.secretArn, description: "Secrets Manager secret of the database owner's credentials" });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarmTopic.topic.topicArn, description: 'SNS topic of every alarm: subscribe to it' });
    new CfnOutput(this, 'DashboardName', { value: dashboard.dashboard.dashboardName, description: 'CloudWatch dashboard' });
  }
}
