import { fileURLToPath } from 'node:url';
import { CfnOutput, Duration, Stack } from 'aws-cdk-lib';
import type { StackProps } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import type { Construct } from 'constructs';
import { AlarmTopic, InboxConsumer, InboxDashboard, InboxDatabase } from '../index.js';
import type { InboxConsumerProps } from '../index.js';
import { acknowledgeDeletionProtectionOff } from './nag-suppressions.js';
import type { InboxStackConfig } from './stack-config.js';

const fromRoot = (relative: string): string => fileURLToPath(new URL(`../../${relative}`, import.meta.url));

/** Where the stack finds its code and SQL; the repository's own files unless a test says otherwise. */
export interface InboxStackSources {
  /** @default functions/order-worker/index.ts */
  readonly workerEntry?: string;
  /** @default functions/shipment-notices/index.ts */
  readonly noticeWorkerEntry?: string;
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

/**
 * The reference deployment, built only from what `sqs-inbox/cdk` exports, as a project using the
 * package would build it: an `InboxDatabase` that makes an Aurora PostgreSQL Serverless v2 cluster
 * (Data API on, pausing at 0 ACU, encrypted, credentials in Secrets Manager, in isolated subnets of a
 * VPC with no NAT), runs the kit's migrations and the app's (`migrations/`: the example's tables and
 * their grants to the worker's role), gives the order worker and the cleanup a database role each,
 * with a secret only its function may read, rotated every 30 days, and runs the cleanup on a
 * schedule; the order worker as an `InboxConsumer` on a FIFO queue, outside the VPC, attached to that
 * database (its role: `order_worker`), whose outbox sends an OrderShipped message for each order it
 * ships to a second FIFO queue, with a relay every minute (role `order_worker_relay`); the notice
 * worker, a second `InboxConsumer` on that queue with an inbox of its own (role `notice_worker`,
 * `migrations/0007_shipment_notices.sql`); one alarm topic for every alarm (with an e-mail
 * subscription when `alarmEmail` is set); a dashboard; outputs for the queue URLs, the cluster
 * ARN, the owner's secret ARN and the alarm topic; and the constructs' own outputs for
 * `npx sqs-inbox --stack SqsInbox-dev` (the operator role, `inbox_operator`, is granted to no one
 * here: a project grants it to its on-call role with `database.grantOperator`).
 *
 * @example
 * ```ts
 * const app = new App();
 * const config = stackConfigFromContext(app.node);
 * new InboxStack(app, `SqsInbox-${config.stage}`, { config });
 * ```
 */
export class InboxStack extends Stack {
  /** The database side: the cluster, migrations, roles and their secrets, the cleanup. */
  public readonly database: InboxDatabase;
  /** The order worker: ships orders, and tells the shipment-notices queue through its outbox. */
  public readonly orderWorker: InboxConsumer;
  /** The second hop: reads the shipment-notices queue, with an inbox of its own (role notice_worker). */
  public readonly noticeWorker: InboxConsumer;
  /** The encrypted, TLS-only SNS topic every alarm of the stack notifies. */
  public readonly alarmTopic: AlarmTopic;

  public constructor(scope: Construct, id: string, props: InboxStackProps) {
    super(scope, id, props);
    const { config } = props;
    const sources = {
      workerEntry: fromRoot('functions/order-worker/index.ts'),
      noticeWorkerEntry: fromRoot('functions/shipment-notices/index.ts'),
      migrationsDir: fromRoot('migrations'),
      ...props.sources,
    };
    const metricsNamespace = `SqsInbox/${config.stage}`;
    const retention = Duration.days(config.retentionDays);

    this.alarmTopic = new AlarmTopic(this, 'Alarms', { email: config.alarmEmail, removalPolicy: config.removalPolicy });
    this.database = new InboxDatabase(this, 'Inbox', {
      minCapacity: config.minCapacity,
      maxCapacity: config.maxCapacity,
      autoPause: config.autoPause,
      deletionProtection: config.deletionProtection,
      removalPolicy: config.removalPolicy,
      migrations: sources.migrationsDir,
      cleanupRetention: retention,
      cleanupSchedule: events.Schedule.expression(config.cleanupSchedule),
      cleanupBatchSize: config.cleanupBatchSize,
      metricsNamespace,
      alarmTopic: this.alarmTopic.topic,
    });
    // What both workers share. Each gets half of the cluster's 2 invocations per ACU (SQS's floor is 2).
    // Every message comes with the idempotency-key attribute, the one key a redrive keeps: the producer
    // (sendMessages) sends it to the order worker, the outbox (its row's id) to the notice worker.
    const worker = {
      database: this.database,
      queueProps: { fifo: true },
      requireIdempotencyKey: true,
      maxConcurrency: Math.max(2, Math.floor(config.maxCapacity)),
      metricsNamespace,
      inboxRetention: retention,
      alarmTopic: this.alarmTopic.topic,
    } satisfies Omit<InboxConsumerProps, 'entry'>;
    // The second hop: the order worker's OrderShipped messages, each claimed in an inbox of its own.
    this.noticeWorker = new InboxConsumer(this, 'NoticeWorker', { ...worker, entry: sources.noticeWorkerEntry, serviceName: 'shipment-notices' });
    this.orderWorker = new InboxConsumer(this, 'OrderWorker', {
      ...worker,
      entry: sources.workerEntry,
      // The consumer's one name: its rows, its relay's, its metrics' service (functions/order-worker's ship-order).
      serviceName: 'ship-order',
      // functions/order-worker's shipOrderOutbox sends to shipmentNotices (its relay's role: order_worker_relay).
      outbox: { targets: { shipmentNotices: this.noticeWorker.queue } },
    });

    const dashboard = new InboxDashboard(this, 'Dashboard', {
      consumers: [this.orderWorker, this.noticeWorker],
      dashboardName: `sqs-inbox-${config.stage}`,
      extraAlarms: Object.values(this.database.cleanupAlarms),
    });
    this.makeOutputs(dashboard);
    if (!config.deletionProtection) acknowledgeDeletionProtectionOff(this.database.cluster);
  }

  private makeOutputs(dashboard: InboxDashboard): void {
    new CfnOutput(this, 'QueueUrl', { value: this.orderWorker.queue.queueUrl, description: 'FIFO queue of the order worker' });
    new CfnOutput(this, 'DeadLetterQueueUrl', { value: this.orderWorker.deadLetterQueue!.queueUrl, description: 'Its dead-letter queue' });
    new CfnOutput(this, 'ShipmentNoticesQueueUrl', { value: this.noticeWorker.queue.queueUrl, description: "FIFO queue of the shipment notices, the order worker's outbox target" });
    new CfnOutput(this, 'ShipmentNoticesDeadLetterQueueUrl', { value: this.noticeWorker.deadLetterQueue!.queueUrl, description: 'Its dead-letter queue' });
    new CfnOutput(this, 'ClusterArn', { value: this.database.cluster.clusterArn, description: 'Aurora cluster (Data API resource ARN)' });
    new CfnOutput(this, 'SecretArn', { value: this.database.ownerSecret.secretArn, description: "Secrets Manager secret of the database owner's credentials" });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarmTopic.topic.topicArn, description: 'SNS topic of every alarm: subscribe to it' });
    new CfnOutput(this, 'DashboardName', { value: dashboard.dashboard.dashboardName, description: 'CloudWatch dashboard' });
  }
}
