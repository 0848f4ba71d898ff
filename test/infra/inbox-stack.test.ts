import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { App } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { INBOX_OUTCOMES } from '../../lib/shared/outcome-metrics.js';
import { AURORA_POSTGRES_VERSION } from '../../lib/database/inbox-database-settings.js';
import { KIT_MIGRATIONS_DIR, migrationsHash } from '../../lib/database/migration-folders.js';
import { INBOX_ENV } from '../../functions/inbox/contract.js';
import { SHIP_ORDER_CONSUMER, SHIPMENT_NOTICES_TARGET } from '../../functions/order-worker/ship-order.js';
import { InboxStack } from '../../lib/stack/inbox-stack.js';
import { stackConfigFromContext } from '../../lib/stack/stack-config.js';
import { renderedText } from './template-text.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations', import.meta.url));
const sqlIn = (dir: string) => readdirSync(dir).filter((file) => file.endsWith('.sql')).sort();

/** The minified order worker (index.mjs; no source map is shipped) must stay under this: 250 KB. */
const WORKER_BUNDLE_BUDGET_BYTES = 250_000;

/** The reference stack as `bin/app.ts` builds it, from `context`; bundled only when asked (slow). */
function synthStack(context: Record<string, unknown> = {}, bundle = false): { app: App; stack: InboxStack; template: Template } {
  const app = new App({ context: bundle ? context : { ...context, 'aws:cdk:bundling-stacks': [] } });
  const config = stackConfigFromContext(app.node);
  const stack = new InboxStack(app, `SqsInbox-${config.stage}`, { config });
  return { app, stack, template: Template.fromStack(stack) };
}

type Resources = Record<string, { Type: string; Properties: Record<string, unknown>; DependsOn?: string[]; DeletionPolicy?: string }>;

const logicalIdOf = (template: Template, type: string, props: Record<string, unknown> = {}): string => {
  const ids = Object.keys(template.findResources(type, { Properties: props }));
  expect(ids).toHaveLength(1);
  return ids[0]!;
};

function functionByDescription(template: Template, description: RegExp): Resources[string] {
  const found = Object.values(template.findResources('AWS::Lambda::Function', {
    Properties: { Description: Match.stringLikeRegexp(description.source) },
  })) as Resources[string][];
  expect(found).toHaveLength(1);
  return found[0]!;
}

describe('the reference stack with the default context (bundled once)', () => {
  let template: Template;
  let stack: InboxStack;
  let assemblyDir: string;
  const assetDir = (fn: Resources[string]) => {
    const key = (fn.Properties.Code as { S3Key: string }).S3Key;
    return path.join(assemblyDir, `asset.${key.replace(/\.zip$/, '')}`);
  };

  beforeAll(() => {
    const synth = synthStack({}, true);
    assemblyDir = synth.app.synth().directory;
    template = synth.template;
    stack = synth.stack;
  });

  describe('network', () => {
    it('is a VPC with isolated subnets only: no NAT gateway, no internet gateway', () => {
      template.resourceCountIs('AWS::EC2::NatGateway', 0);
      template.resourceCountIs('AWS::EC2::InternetGateway', 0);
      template.resourceCountIs('AWS::EC2::Subnet', 2);
      template.allResourcesProperties('AWS::EC2::Subnet', { MapPublicIpOnLaunch: false });
    });

    it('logs rejected traffic', () => {
      template.hasResourceProperties('AWS::EC2::FlowLog', { TrafficType: 'REJECT', LogDestinationType: 'cloud-watch-logs' });
    });
  });

  describe('database', () => {
    it('is Aurora PostgreSQL Serverless v2 with the Data API, encrypted, scaling from 0 ACU with a 5-minute auto-pause', () => {
      template.hasResourceProperties('AWS::RDS::DBCluster', {
        Engine: 'aurora-postgresql',
        EngineVersion: AURORA_POSTGRES_VERSION.auroraPostgresFullVersion,
        EnableHttpEndpoint: true,
        StorageEncrypted: true,
        DatabaseName: 'inbox',
        ServerlessV2ScalingConfiguration: { MinCapacity: 0, MaxCapacity: 2, SecondsUntilAutoPause: 300 },
        DeletionProtection: false,
      });
      template.hasResourceProperties('AWS::RDS::DBInstance', { DBInstanceClass: 'db.serverless', PubliclyAccessible: false });
    });

    it('keeps the pinned version: no automatic minor version upgrade moves the cluster past the version the template names', () => {
      template.hasResourceProperties('AWS::RDS::DBInstance', { AutoMinorVersionUpgrade: false });
    });

    it('runs a version with the Data API (17.4+) and auto-pause (13.15+, 14.12+, 15.7+, 16.3+, any 17)', () => {
      const [major, minor] = AURORA_POSTGRES_VERSION.auroraPostgresFullVersion.split('.').map(Number) as [number, number];
      const autoPauseMinor: Record<number, number> = { 13: 15, 14: 12, 15: 7, 16: 3, 17: 4 };
      expect(major).toBeGreaterThanOrEqual(17);
      expect(minor).toBeGreaterThanOrEqual(autoPauseMinor[17]!);
    });

    it('keeps a final snapshot on removal by default', () => {
      const clusters = Object.values(template.findResources('AWS::RDS::DBCluster')) as Resources[string][];
      expect(clusters[0]!.DeletionPolicy).toBe('Snapshot');
    });

    it('takes its credentials from a generated Secrets Manager secret', () => {
      template.hasResourceProperties('AWS::SecretsManager::Secret', {
        GenerateSecretString: Match.objectLike({ GenerateStringKey: 'password', SecretStringTemplate: '{"username":"inbox_admin"}' }),
      });
      template.hasResourceProperties('AWS::RDS::DBCluster', {
        MasterUserPassword: { 'Fn::Join': ['', Match.arrayWith([Match.stringLikeRegexp('resolve:secretsmanager')])] },
      });
    });
  });

  describe('migrations', () => {
    it('run by a custom resource whose property is the hash of the kit\'s migrations and migrations/, so a change runs them again', () => {
      template.hasResourceProperties('Custom::InboxMigrations', {
        ServiceToken: Match.anyValue(),
        MigrationsHash: migrationsHash(MIGRATIONS_DIR),
      });
    });

    it('run again on a replaced cluster or another database: the resource carries the target the function migrates', () => {
      const [migrations] = Object.values(template.findResources('Custom::InboxMigrations')) as Resources[string][];
      const migrate = functionByDescription(template, /Applies the inbox migrations/);
      const environment = (migrate.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      expect(migrations!.Properties.DatabaseName).toBe('inbox');
      expect(migrations!.Properties.DatabaseName).toEqual(environment.DATABASE_NAME);
      expect(migrations!.Properties.ClusterArn).toEqual(environment.CLUSTER_ARN);
      expect(JSON.stringify(migrations!.Properties.ClusterArn)).toContain(logicalIdOf(template, 'AWS::RDS::DBCluster'));
    });

    it('wait for the writer instance', () => {
      const writer = logicalIdOf(template, 'AWS::RDS::DBInstance');
      const [migrations] = Object.values(template.findResources('Custom::InboxMigrations')) as Resources[string][];
      expect(migrations!.DependsOn).toContain(writer);
    });

    it('travel inside the migrate function asset, next to its bundle: the kit\'s and the app\'s, each in the folder the function reads', () => {
      const asset = assetDir(functionByDescription(template, /Applies the inbox migrations/));
      for (const [folder, dir] of [['kit-migrations', KIT_MIGRATIONS_DIR], ['migrations', MIGRATIONS_DIR]] as const) {
        const repo = sqlIn(dir);
        expect(repo.length).toBeGreaterThan(0);
        expect(readdirSync(path.join(asset, folder)).sort()).toEqual(repo);
        for (const file of repo) expect(readFileSync(path.join(asset, folder, file), 'utf8')).toBe(readFileSync(path.join(dir, file), 'utf8'));
      }
      expect(readdirSync(asset)).toContain('index.mjs');
    });
  });

  describe('order worker', () => {
    it('consumes a FIFO queue with a FIFO DLQ, as the notice worker does (the standard queues are the cleanup\'s and the relay\'s schedule DLQs)', () => {
      const queues = Object.values(template.findResources('AWS::SQS::Queue')) as Resources[string][];
      expect(queues.map((queue) => queue.Properties.FifoQueue ?? false).sort()).toEqual([false, false, true, true, true, true]);
      for (const worker of [stack.orderWorker, stack.noticeWorker]) expect([worker.fifo, worker.deadLetterQueue!.fifo]).toEqual([true, true]);
    });

    it('refuses messages without the idempotency-key attribute: the producer always sends it, and a redrive keeps only it', () => {
      const worker = functionByDescription(template, /Inbox consumer ship-order/);
      expect((worker.Properties.Environment as { Variables: Record<string, unknown> }).Variables).toMatchObject({ INBOX_REQUIRE_KEY_ATTRIBUTE: 'true' });
    });

    it('runs outside the VPC (the Data API needs none), after the migrations', () => {
      const worker = functionByDescription(template, /Inbox consumer ship-order/);
      expect(worker.Properties.VpcConfig).toBeUndefined();
      expect(worker.DependsOn).toContain(logicalIdOf(template, 'Custom::InboxMigrations'));
      expect(worker.Properties).toMatchObject({
        Handler: 'index.handler',
        Environment: { Variables: expect.objectContaining({ DATABASE_NAME: 'inbox', POWERTOOLS_METRICS_NAMESPACE: 'SqsInbox/dev', POWERTOOLS_SERVICE_NAME: 'ship-order', INBOX_CONSUMER: 'ship-order' }) },
      });
    });

    it(`bundles to under ${WORKER_BUNDLE_BUDGET_BYTES} bytes`, () => {
      const sizes: Record<string, number> = Object.fromEntries([
        ['order worker', /Inbox consumer ship-order/],
        ['migrate', /Applies the inbox migrations/],
        ['inbox cleanup', /Deletes inbox rows/],
        ['notice worker', /Inbox consumer shipment-notices/],
        ['outbox relay', /Outbox relay of ship-order/],
        ['role rotation', /Rotates the secret of database role order_worker \(/],
      ].map(([name, description]) => [name, statSync(path.join(assetDir(functionByDescription(template, description as RegExp)), 'index.mjs')).size]));
      for (const [name, bytes] of Object.entries(sizes)) console.info(`bundle ${name}: ${bytes} bytes (${(bytes / 1024).toFixed(1)} KiB) minified`);
      for (const name of ['order worker', 'notice worker', 'outbox relay']) expect(sizes[name]).toBeLessThan(WORKER_BUNDLE_BUDGET_BYTES);
      const worker = assetDir(functionByDescription(template, /Inbox consumer ship-order/));
      expect(readdirSync(worker).filter((file) => file.endsWith('.map'))).toEqual([]);
    });
  });

  describe('cleanup', () => {
    it('runs daily on an EventBridge schedule with the retention and batch size as configuration, and a DLQ for runs it gave up on', () => {
      const cleanup = functionByDescription(template, /Deletes inbox rows/);
      expect(cleanup.Properties.VpcConfig).toBeUndefined();
      expect((cleanup.Properties.Environment as { Variables: Record<string, unknown> }).Variables).toMatchObject({
        RETENTION_DAYS: '25', CLEANUP_BATCH_SIZE: '1000',
        CLUSTER_ARN: expect.anything(), SECRET_ARN: expect.anything(), DATABASE_NAME: 'inbox',
      });
      const cleanupId = Object.entries(template.findResources('AWS::Lambda::Function'))
        .find(([, fn]) => fn.Properties.Description === cleanup.Properties.Description)![0];
      const deadLetterQueue = stack.getLogicalId(stack.database.cleanupDeadLetterQueue.node.defaultChild as never);
      template.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: 'cron(17 3 * * ? *)',
        Targets: [Match.objectLike({
          Arn: { 'Fn::GetAtt': [cleanupId, 'Arn'] }, RetryPolicy: { MaximumRetryAttempts: 2 },
          DeadLetterConfig: { Arn: { 'Fn::GetAtt': [deadLetterQueue, 'Arn'] } },
        })],
      });
      template.hasResourceProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 86_400, FifoQueue: Match.absent() });
    });

    it('alarms when it fails', () => {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', { AlarmDescription: Match.stringLikeRegexp('cleanup failed'), MetricName: 'Errors' });
    });
  });

  describe('functions', () => {
    it('are all arm64 (the two workers, the relay, the migrate function, the cleanup, the five rotations, the operator role\'s among them) and none lives in the VPC', () => {
      const ours = Object.values(template.findResources('AWS::Lambda::Function', { Properties: { Architectures: ['arm64'] } }));
      expect(ours).toHaveLength(10);
      template.allResourcesProperties('AWS::Lambda::Function', { VpcConfig: Match.absent() });
    });
  });

  describe('dashboard and outputs', () => {
    it('graphs every outcome of the order worker', () => {
      const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard', { Properties: { DashboardName: 'sqs-inbox-dev' } }));
      const body = JSON.stringify(dashboard!.Properties.DashboardBody);
      for (const outcome of INBOX_OUTCOMES) expect(body).toContain(`\\"${outcome}\\"`);
      expect(body).toContain('processingLatency');
      expect(body).toContain('ApproximateAgeOfOldestMessage');
    });

    it('outputs the queue URLs and the DLQ URLs of both hops, the cluster ARN and the secret ARN', () => {
      for (const name of ['QueueUrl', 'DeadLetterQueueUrl', 'ShipmentNoticesQueueUrl', 'ShipmentNoticesDeadLetterQueueUrl', 'ClusterArn', 'SecretArn']) {
        template.hasOutput(name, { Value: Match.anyValue() });
      }
    });

    it('graphs the order worker\'s outbox and both workers\' outcomes', () => {
      const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
      const body = JSON.stringify(dashboard!.Properties.DashboardBody);
      for (const title of ['ship-order: outbox rows per minute', 'ship-order: outbox relay', 'shipment-notices: outcomes per minute']) expect(body).toContain(title);
    });
  });
});

describe('the cleanup alarms (unbundled)', () => {
  const { stack, template } = synthStack();
  const ruleId = () => stack.getLogicalId(stack.database.cleanupSchedule.node.defaultChild as never);

  it('alarm when the cleanup is not invoked on two days in a row, a day without data counting as one', () => {
    const cleanupId = Object.entries(template.findResources('AWS::Lambda::Function', { Properties: { Description: Match.stringLikeRegexp('Deletes inbox rows') } }))[0]![0];
    const [alarm, ...others] = Object.values(template.findResources('AWS::CloudWatch::Alarm', {
      Properties: { MetricName: 'Invocations', Dimensions: [{ Name: 'FunctionName', Value: { Ref: cleanupId } }] },
    }));
    expect(others).toEqual([]);
    expect(alarm!.Properties).toMatchObject({
      Namespace: 'AWS/Lambda', Dimensions: [{ Name: 'FunctionName', Value: { Ref: cleanupId } }], Statistic: 'Sum', Period: 86_400,
      EvaluationPeriods: 2, DatapointsToAlarm: 2, Threshold: 1, ComparisonOperator: 'LessThanThreshold', TreatMissingData: 'breaching',
    });
  });

  it('alarm when EventBridge gives up invoking the cleanup: failed, sent to the DLQ, or not even that', () => {
    const [alarm, ...others] = Object.values(template.findResources('AWS::CloudWatch::Alarm', { Properties: { AlarmDescription: Match.stringLikeRegexp('EventBridge gave up invoking the inbox cleanup') } }));
    expect(others).toEqual([]);
    expect(alarm!.Properties).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold', TreatMissingData: 'notBreaching' });
    const metrics = alarm!.Properties.Metrics as { Expression?: string; MetricStat?: { Metric: { Namespace: string; MetricName: string; Dimensions: unknown } } }[];
    expect(metrics.find((m) => m.Expression)?.Expression).toBe('FILL(failed, 0) + FILL(dlq, 0) + FILL(notDlq, 0)');
    const stats = metrics.filter((m) => m.MetricStat).map((m) => m.MetricStat!.Metric);
    expect(stats.map((m) => m.MetricName).sort()).toEqual(['FailedInvocations', 'InvocationsFailedToBeSentToDlq', 'InvocationsSentToDlq']);
    for (const metric of stats) expect(metric).toMatchObject({ Namespace: 'AWS/Events', Dimensions: [{ Name: 'RuleName', Value: { Ref: ruleId() } }] });
  });

  it('alarm when the backlog lasts: no run finished (done = 0) on each of 3 days', () => {
    const [alarm, ...others] = Object.values(template.findResources('AWS::CloudWatch::Alarm', { Properties: { MetricName: 'done' } }));
    expect(others).toEqual([]);
    expect(alarm!.Properties).toMatchObject({
      Namespace: 'SqsInbox/dev', Dimensions: [{ Name: 'service', Value: 'inbox-cleanup' }],
      Statistic: 'Maximum', Period: 86_400, EvaluationPeriods: 3, DatapointsToAlarm: 3,
      Threshold: 1, ComparisonOperator: 'LessThanThreshold', TreatMissingData: 'notBreaching',
    });
  });

  it('give the cleanup function the namespace and service the alarm reads', () => {
    const cleanup = functionByDescription(template, /Deletes inbox rows/);
    expect((cleanup.Properties.Environment as { Variables: Record<string, unknown> }).Variables)
      .toMatchObject({ POWERTOOLS_METRICS_NAMESPACE: 'SqsInbox/dev', POWERTOOLS_SERVICE_NAME: 'inbox-cleanup' });
  });
});

describe('the alarm topic (unbundled)', () => {
  const { stack, template } = synthStack();
  const topicId = () => logicalIdOf(template, 'AWS::SNS::Topic');

  it('is one topic encrypted with a rotated customer managed key that CloudWatch alarms may use', () => {
    const keyId = logicalIdOf(template, 'AWS::KMS::Key');
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] } });
    template.hasResourceProperties('AWS::KMS::Key', {
      EnableKeyRotation: true,
      KeyPolicy: { Statement: Match.arrayWith([Match.objectLike({
        Effect: 'Allow', Principal: { Service: 'cloudwatch.amazonaws.com' }, Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        // Only this account's alarms, as the topic policy says.
        Condition: { StringEquals: { 'aws:SourceAccount': Match.anyValue() }, ArnLike: { 'aws:SourceArn': Match.anyValue() } },
      })]) },
    });
  });

  it('refuses plain HTTP and lets only this account\'s CloudWatch alarms publish', () => {
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: topicId() }],
      PolicyDocument: { Statement: Match.arrayWith([
        Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        Match.objectLike({
          Effect: 'Allow', Principal: { Service: 'cloudwatch.amazonaws.com' }, Action: 'sns:Publish',
          Condition: Match.objectLike({ StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } }),
        }),
      ]) },
    });
  });

  it('has no subscription unless an e-mail address is given', () => {
    template.resourceCountIs('AWS::SNS::Subscription', 0);
    synthStack({ alarmEmail: 'ops@example.com' }).template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email', Endpoint: 'ops@example.com',
    });
  });

  it('receives every alarm of the stack, the cleanup\'s and the outbox\'s included', () => {
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    // Each worker's 9 (no keyFallback: requireIdempotencyKey rejects such messages), the cleanup's 4, the order worker's outbox's 5.
    expect(alarms).toHaveLength(9 + 9 + 4 + 5);
    for (const alarm of alarms) expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topicId() }]);
  });

  it('comes with a concurrency cap of 2 per ACU of the cluster maximum shared by the two workers (2 ACU: 2 each) and no warning', () => {
    template.allResourcesProperties('AWS::Lambda::EventSourceMapping', { ScalingConfig: { MaximumConcurrency: 2 } });
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 2);
    Annotations.fromStack(stack).hasNoWarning('*', Match.anyValue());
  });
});

describe('the two hops of the reference stack (unbundled)', () => {
  const { stack, template } = synthStack();
  const resources = template.toJSON().Resources as Resources;
  const idOf = (construct: { node: { defaultChild?: unknown } }) => stack.getLogicalId(construct.node.defaultChild as never);
  const variables = (fn: { node: { defaultChild?: unknown } }) => (resources[idOf(fn)]!.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
  const notices = stack.noticeWorker.queue;

  it('the order worker\'s outbox sends to the notice worker\'s queue, by the name its handler gives (shipOrderOutbox)', () => {
    for (const fn of [stack.orderWorker.lambdaFunction, stack.orderWorker.outbox!.relayFunction]) {
      expect(JSON.parse(renderedText(variables(fn)[INBOX_ENV.outboxTargets]))).toEqual({ [SHIPMENT_NOTICES_TARGET]: { type: 'sqs', queueUrl: `<Ref ${idOf(notices)}>` } });
    }
  });

  it('the worker and its relay may send there and nowhere else', () => {
    const senders = Object.values(resources).filter((r) => r.Type === 'AWS::IAM::Policy')
      .flatMap((r) => (r.Properties.PolicyDocument as { Statement: { Action: string | string[]; Resource: unknown }[] }).Statement
        .filter((statement) => [statement.Action].flat().includes('sqs:SendMessage'))
        .map((statement) => ({ roles: r.Properties.Roles, resource: statement.Resource })));
    const roleOf = (fn: { role?: { node: { defaultChild?: unknown } } }) => [{ Ref: idOf(fn.role!) }];
    expect(senders).toEqual(expect.arrayContaining([
      { roles: roleOf(stack.orderWorker.lambdaFunction), resource: { 'Fn::GetAtt': [idOf(notices), 'Arn'] } },
      { roles: roleOf(stack.orderWorker.outbox!.relayFunction), resource: { 'Fn::GetAtt': [idOf(notices), 'Arn'] } },
    ]));
    // The others are the rotations' and the schedules' DLQ targets, EventBridge's (queue policies), not a function's.
    expect(senders.filter((sender) => JSON.stringify(sender.resource).includes(idOf(notices)))).toHaveLength(2);
  });

  it('the relay sends the rows of the handler\'s consumer, ship-order, the name its function is deployed as, every minute', () => {
    expect(variables(stack.orderWorker.outbox!.relayFunction)[INBOX_ENV.consumer]).toBe(SHIP_ORDER_CONSUMER);
    expect(variables(stack.orderWorker.lambdaFunction)[INBOX_ENV.consumer]).toBe(SHIP_ORDER_CONSUMER);
    expect(resources[idOf(stack.orderWorker.outbox!.relaySchedule)]!.Properties.ScheduleExpression).toBe('rate(1 minute)');
  });

  it('the notice worker runs functions/shipment-notices as notice_worker, the role migrations/0007 grants its table to, and refuses messages without the key the outbox sends', () => {
    expect(stack.noticeWorker.databaseRole).toBe('notice_worker');
    expect(readFileSync(path.join(MIGRATIONS_DIR, '0007_shipment_notices.sql'), 'utf8')).toContain('GRANT INSERT ON shipment_notice TO notice_worker');
    expect(resources[idOf(stack.noticeWorker.lambdaFunction)]!.Properties.Handler).toBe('index.handler');
    expect(variables(stack.noticeWorker.lambdaFunction)).toMatchObject({ INBOX_REQUIRE_KEY_ATTRIBUTE: 'true', POWERTOOLS_SERVICE_NAME: 'shipment-notices' });
    expect(stack.noticeWorker.outbox).toBeUndefined();
  });
});

describe('the reference stack with context given', () => {
  it('takes deletion protection, removal policy, capacities and retention from context, strings as -c gives them', () => {
    const { stack, template } = synthStack({
      stage: 'prod', deletionProtection: 'true', removalPolicy: 'retain', minCapacity: '0.5', maxCapacity: '8', retentionDays: '30',
    });
    expect(stack.stackName).toBe('SqsInbox-prod');
    template.hasResourceProperties('AWS::RDS::DBCluster', {
      DeletionProtection: true,
      ServerlessV2ScalingConfiguration: { MinCapacity: 0.5, MaxCapacity: 8 },
    });
    const clusters = Object.values(template.findResources('AWS::RDS::DBCluster')) as Resources[string][];
    expect(clusters[0]!.DeletionPolicy).toBe('Retain');
    template.hasResourceProperties('AWS::Lambda::Function', { Environment: { Variables: Match.objectLike({ RETENTION_DAYS: '30' }) } });
    template.hasResourceProperties('AWS::CloudWatch::Dashboard', { DashboardName: 'sqs-inbox-prod' });
  });

  it('leaves the cleanup\'s schedule and batch size to InboxDatabase to judge, which names them', () => {
    expect(() => synthStack({ cleanupSchedule: 'rate(7 days)' })).toThrow(/cleanupSchedule must be an EventBridge schedule that runs at least once a day .* "rate\(7 days\)"/);
    expect(() => synthStack({ cleanupBatchSize: '0' })).toThrow(/cleanupBatchSize must be a whole number of rows from 1 to 10000, but 0 was provided/);
  });

  it('refuses a retention shorter than a message can come back: the queue, the DLQ, and the queue again after a redrive (4 + 14 + 4 days)', () => {
    expect(() => synthStack({ retentionDays: 21 })).toThrow(/inbox retention must be at least the queue's message retention plus the dead-letter queue's plus the queue's again/);
    expect(() => synthStack({ retentionDays: 22 })).not.toThrow();
  });

  it('keeps the alarm topic\'s key as the stage keeps its data: retained with retain, deleted with snapshot or destroy', () => {
    const keyPolicy = (removalPolicy: string) =>
      (Object.values(synthStack({ removalPolicy }).template.findResources('AWS::KMS::Key')) as Resources[string][]).map((key) => key.DeletionPolicy);
    expect(keyPolicy('retain')).toEqual(['Retain']);
    expect(keyPolicy('snapshot')).toEqual(['Delete']);
    expect(keyPolicy('destroy')).toEqual(['Delete']);
  });
});
