import { fileURLToPath } from 'node:url';
import { CfnOutput, CustomResource, Duration, Stack } from 'aws-cdk-lib';
import type { StackProps } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as rds from 'aws-cdk-lib/aws-rds';
import * as cr from 'aws-cdk-lib/custom-resources';
import type { Construct } from 'constructs';
import { INBOX_ENV } from '../../functions/inbox/contract.js';
import { AlarmTopic } from '../alarm-topic.js';
import { cleanupAlarms } from '../cleanup/cleanup-alarms.js';
import { checkCleanupRetention } from '../cleanup/cleanup-retention.js';
import { failureQueue } from '../consumer/failure-queue.js';
import { grantDataApiCalls } from '../data-api-access.js';
import { INBOX_DATABASE_ROLES, ROLE_SECRETS_ENV } from '../database-roles.js';
import { InboxConsumer } from '../sqs/inbox-consumer.js';
import { InboxDashboard } from '../inbox-dashboard.js';
import { inboxFunction } from '../inbox-function.js';
import { migrationsHash } from './migrations-hash.js';
import { suppressInboxStackFindings } from './nag-suppressions.js';
import type { InboxStackConfig } from './stack-config.js';

const fromRoot = (relative: string): string => fileURLToPath(new URL(`../../${relative}`, import.meta.url));

/**
 * Aurora PostgreSQL with both the Data API (17.4+) and auto-pause at 0 ACU. Pinned, not computed:
 * a newer aws-cdk-lib must never upgrade a database by itself. The writer's automatic minor
 * version upgrades are off to match: with them on, AWS moves the cluster past this version in a
 * maintenance window, and a later deploy that still names it asks for a downgrade and fails. A
 * minor upgrade is a change to this constant, deployed (and tested against the Data API) like any
 * other; AWS still upgrades a version it stops supporting, after notice.
 */
export const AURORA_POSTGRES_VERSION = rds.AuroraPostgresEngineVersion.VER_17_9;

/** Where the stack finds its code and SQL; the repository's own files unless a test says otherwise. */
export interface InboxStackSources {
  /** @default functions/order-worker/index.ts */
  readonly workerEntry?: string;
  /** @default functions/inbox-cleanup/index.ts */
  readonly cleanupEntry?: string;
  /** @default functions/migrate/index.ts */
  readonly migrateEntry?: string;
  /** @default migrations/ */
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

/** The cleanup's POWERTOOLS_SERVICE_NAME, the `service` dimension of its metrics. */
const CLEANUP_SERVICE_NAME = 'inbox-cleanup';

/** The database the inbox and the example's tables live in. */
const DATABASE_NAME = 'inbox';

/** The secrets of the functions' own database roles (see `INBOX_DATABASE_ROLES`). */
export interface DatabaseRoleSecrets {
  /** `inbox_worker`: the order worker's. */
  readonly worker: rds.DatabaseSecret;
  /** `inbox_cleanup`: the cleanup's. */
  readonly cleanup: rds.DatabaseSecret;
}

/**
 * The reference deployment: an Aurora PostgreSQL Serverless v2 cluster (Data API on, pausing at
 * 0 ACU, encrypted, credentials in Secrets Manager) in isolated subnets of a VPC with no NAT; the
 * migrations applied by a custom resource on each deploy that changes them; the order worker as an
 * `InboxConsumer` on a FIFO queue, outside the VPC; the inbox cleanup on an EventBridge schedule.
 * Each function signs in to the database as a role of its own, through a secret only it may read:
 * the migrate function as the owner (the master secret), the worker as `inbox_worker`, the cleanup
 * as `inbox_cleanup`, whose grants are in migrations/0003_database_roles.sql and whose passwords the
 * migrate function sets from their secrets;
 * one alarm topic for every alarm (with an e-mail subscription when `alarmEmail` is set); a
 * dashboard; and outputs for the queue URLs, the cluster ARN, the secret ARN and the alarm topic.
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
  /** The secrets of the worker's and the cleanup's database roles. */
  public readonly roleSecrets: DatabaseRoleSecrets;
  public readonly orderWorker: InboxConsumer;
  public readonly migrations: CustomResource;
  public readonly cleanupSchedule: events.Rule;
  /** The encrypted, TLS-only SNS topic every alarm of the stack notifies. */
  public readonly alarmTopic: AlarmTopic;

  public constructor(scope: Construct, id: string, props: InboxStackProps) {
    super(scope, id, props);
    const { config } = props;
    const sources = {
      workerEntry: fromRoot('functions/order-worker/index.ts'),
      cleanupEntry: fromRoot('functions/inbox-cleanup/index.ts'),
      migrateEntry: fromRoot('functions/migrate/index.ts'),
      migrationsDir: fromRoot('migrations'),
      ...props.sources,
    };
    const metricsNamespace = `SqsInbox/${config.stage}`;

    this.cluster = this.makeCluster(config, this.makeNetwork());
    this.roleSecrets = this.makeRoleSecrets();
    const databaseEnvironment = {
      [INBOX_ENV.clusterArn]: this.cluster.clusterArn,
      [INBOX_ENV.databaseName]: DATABASE_NAME,
    };
    const { migrateFunction, providerRole, migrations } = this.makeMigrations(sources, databaseEnvironment);
    this.migrations = migrations;
    this.alarmTopic = new AlarmTopic(this, 'Alarms', { email: config.alarmEmail, removalPolicy: config.removalPolicy });

    this.orderWorker = new InboxConsumer(this, 'OrderWorker', {
      cluster: this.cluster,
      secret: this.roleSecrets.worker,
      databaseName: DATABASE_NAME,
      entry: sources.workerEntry,
      queueProps: { fifo: true },
      // The producer (sendMessages) always sends the idempotency-key attribute, the one key a redrive keeps.
      requireIdempotencyKey: true,
      serviceName: 'order-worker',
      metricsNamespace,
      inboxRetention: Duration.days(config.retentionDays),
      clusterMaxCapacity: config.maxCapacity,
      alarmTopic: this.alarmTopic.topic,
    });
    // No message is consumed before the tables exist.
    this.orderWorker.lambdaFunction.node.addDependency(this.migrations);

    const cleanup = this.makeCleanup(config, sources.cleanupEntry, { ...databaseEnvironment, POWERTOOLS_METRICS_NAMESPACE: metricsNamespace });
    this.cleanupSchedule = cleanup.schedule;
    // One retention for every consumer's rows: it must cover the one that needs them longest.
    checkCleanupRetention(Duration.days(config.retentionDays), [this.orderWorker]);
    const cleanupAlarmList = Object.values(cleanup.alarms);
    for (const alarm of cleanupAlarmList) alarm.addAlarmAction(this.alarmTopic.action);

    const dashboard = new InboxDashboard(this, 'Dashboard', {
      consumers: [this.orderWorker],
      dashboardName: `sqs-inbox-${config.stage}`,
      extraAlarms: cleanupAlarmList,
    });
    this.makeOutputs(dashboard);

    suppressInboxStackFindings({
      cluster: this.cluster,
      roleSecrets: [
        { role: INBOX_DATABASE_ROLES.worker, secret: this.roleSecrets.worker },
        { role: INBOX_DATABASE_ROLES.cleanup, secret: this.roleSecrets.cleanup },
      ],
      migrateFunction,
      providerRole,
      cleanupScheduleDeadLetterQueue: cleanup.deadLetterQueue,
      deletionProtection: config.deletionProtection,
    });
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

  /**
   * A generated `{ username, password }` secret for each of the worker's and the cleanup's database
   * roles (30 characters, made by Secrets Manager: the value is never in the template). Secrets
   * Manager encrypts them at rest with its KMS key, as the master secret. A customer managed key
   * would gate nothing more: the CDK's Secret lets every principal of the account use its key
   * through Secrets Manager, as the AWS managed key does, so what keeps each function to its own
   * role is that it may read its own secret only. Deleted with the stack: the migrate function sets
   * the roles' passwords from whatever secrets the next stack has.
   */
  private makeRoleSecrets(): DatabaseRoleSecrets {
    return {
      worker: new rds.DatabaseSecret(this, 'WorkerDatabaseSecret', { username: INBOX_DATABASE_ROLES.worker }),
      cleanup: new rds.DatabaseSecret(this, 'CleanupDatabaseSecret', { username: INBOX_DATABASE_ROLES.cleanup }),
    };
  }

  /**
   * The migrate function and the custom resource that runs it when the migrations, their database
   * or the role secrets change. It alone signs in as the owner, and it may read the role secrets to
   * set the roles' passwords.
   */
  private makeMigrations(sources: Required<InboxStackSources>, databaseEnvironment: Record<string, string>) {
    const roleSecrets = Stack.of(this).toJsonString({
      [INBOX_DATABASE_ROLES.worker]: this.roleSecrets.worker.secretArn,
      [INBOX_DATABASE_ROLES.cleanup]: this.roleSecrets.cleanup.secretArn,
    });
    const environment: Record<string, string> = { ...databaseEnvironment, [INBOX_ENV.secretArn]: this.cluster.secret!.secretArn, [ROLE_SECRETS_ENV]: roleSecrets };
    const migrateFunction = inboxFunction(this, 'MigrateFunction', {
      entry: sources.migrateEntry,
      timeout: Duration.minutes(5),
      memorySize: 256,
      environment,
      logRetention: logs.RetentionDays.ONE_MONTH,
      description: 'Applies the inbox migrations over the Data API (custom resource)',
      commandHooks: {
        beforeBundling: () => [],
        beforeInstall: () => [],
        // The SQL goes into the asset next to index.mjs, where the handler looks for it.
        afterBundling: (_inputDir: string, outputDir: string) => [
          `mkdir -p "${outputDir}/migrations"`,
          `cp "${sources.migrationsDir}"/*.sql "${outputDir}/migrations/"`,
        ],
      },
    });
    // The Data API calls the driver makes (no BatchExecuteStatement) and the master secret: the
    // owner, who runs the migrations.
    grantDataApiCalls(this.cluster, migrateFunction);
    this.cluster.secret!.grantRead(migrateFunction);
    this.roleSecrets.worker.grantRead(migrateFunction);
    this.roleSecrets.cleanup.grantRead(migrateFunction);
    const providerLogs = new logs.LogGroup(this, 'MigrationsProviderLogs', { retention: logs.RetentionDays.ONE_MONTH });
    const providerRole = new iam.Role(this, 'MigrationsProviderRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: 'Custom resource framework of the migrations: its log group and invoking the migrate function',
    });
    providerLogs.grantWrite(providerRole);
    const migrationsProvider = new cr.Provider(this, 'MigrationsProvider', {
      onEventHandler: migrateFunction,
      logGroup: providerLogs,
      frameworkOnEventRole: providerRole,
    });
    const migrations = new CustomResource(this, 'Migrations', {
      serviceToken: migrationsProvider.serviceToken,
      resourceType: 'Custom::InboxMigrations',
      // Any change of these is an Update, which the function acts on only when they are its own:
      // new migrations, a new cluster or database (which then gets every migration), or new role
      // secrets (whose passwords it then sets). A rollback sends the older values to the newer
      // function, which leaves the database alone.
      properties: {
        MigrationsHash: migrationsHash(sources.migrationsDir),
        ClusterArn: environment[INBOX_ENV.clusterArn],
        DatabaseName: environment[INBOX_ENV.databaseName],
        RoleSecrets: roleSecrets,
      },
    });
    // The writer instance, not only the cluster, must be up before the Data API answers.
    migrations.node.addDependency(this.cluster);
    return { migrateFunction, providerRole, migrations };
  }

  /**
   * The cleanup function on its schedule, after the migrations, with alarms on its errors, a
   * lasting backlog, a schedule that stopped running it, and invocations EventBridge gave up on
   * (those go to a dead-letter queue of the schedule's own); it signs in as `inbox_cleanup` and may
   * read that role's secret alone.
   */
  private makeCleanup(config: InboxStackConfig, entry: string, environment: Record<string, string>) {
    const secret = this.roleSecrets.cleanup;
    const cleanupFunction = inboxFunction(this, 'CleanupFunction', {
      entry,
      timeout: Duration.minutes(10),
      memorySize: 256,
      logRetention: logs.RetentionDays.ONE_MONTH,
      description: `Deletes inbox rows older than ${config.retentionDays} days`,
      environment: {
        ...environment,
        [INBOX_ENV.secretArn]: secret.secretArn,
        [INBOX_ENV.retentionDays]: String(config.retentionDays),
        [INBOX_ENV.cleanupBatchSize]: String(config.cleanupBatchSize),
        POWERTOOLS_SERVICE_NAME: CLEANUP_SERVICE_NAME,
      },
    });
    // The cleanup's DELETEs are single autocommitted statements: it begins no transaction.
    grantDataApiCalls(this.cluster, cleanupFunction, ['rds-data:ExecuteStatement']);
    secret.grantRead(cleanupFunction);
    // Its role, and the role's password, exist once the migrations have run.
    cleanupFunction.node.addDependency(this.migrations);
    const deadLetterQueue = failureQueue(this, 'CleanupScheduleDeadLetterQueue', { fifo: false });
    const schedule = new events.Rule(this, 'CleanupSchedule', {
      description: 'Runs the inbox cleanup',
      schedule: events.Schedule.expression(config.cleanupSchedule),
      targets: [new targets.LambdaFunction(cleanupFunction, { retryAttempts: 2, deadLetterQueue })],
    });
    const alarms = cleanupAlarms(this, {
      cleanupFunction,
      schedule,
      namespace: environment.POWERTOOLS_METRICS_NAMESPACE!,
      serviceName: CLEANUP_SERVICE_NAME,
    });
    return { schedule, alarms, deadLetterQueue };
  }

  private makeOutputs(dashboard: InboxDashboard): void {
    new CfnOutput(this, 'QueueUrl', { value: this.orderWorker.queue.queueUrl, description: 'FIFO queue of the order worker' });
    new CfnOutput(this, 'DeadLetterQueueUrl', { value: this.orderWorker.deadLetterQueue!.queueUrl, description: 'Its dead-letter queue' });
    new CfnOutput(this, 'ClusterArn', { value: this.cluster.clusterArn, description: 'Aurora cluster (Data API resource ARN)' });
    new CfnOutput(this, 'SecretArn', { value: this.cluster.secret!.secretArn, description: "Secrets Manager secret of the database owner's credentials" });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarmTopic.topic.topicArn, description: 'SNS topic of every alarm: subscribe to it' });
    new CfnOutput(this, 'DashboardName', { value: dashboard.dashboard.dashboardName, description: 'CloudWatch dashboard' });
  }
}
