import type { Stack } from 'aws-cdk-lib';
import { Duration } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as rds from 'aws-cdk-lib/aws-rds';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { INBOX_ENV } from '../../functions/inbox/contract.js';
import { INBOX_WARNINGS } from '../../lib/shared/warnings.js';
import { DATA_API_ACTIONS } from '../../lib/data-api-access.js';
import { InboxDatabase } from '../../lib/database/inbox-database.js';
import { AURORA_POSTGRES_VERSION } from '../../lib/database/inbox-database-settings.js';
import { migrationsHash } from '../../lib/database/migration-folders.js';
import { InboxKafkaConsumer } from '../../lib/kafka/inbox-kafka-consumer.js';
import { InboxConsumer } from '../../lib/sqs/inbox-consumer.js';
import { REFERENCE_MIGRATIONS_DIR } from '../../demo/reference-database.js';
import { acknowledgments, unacknowledgedFindings } from '../support/nag.js';
import { WORKER_ENTRY } from './consumer-fixture.js';
import { bareStack } from './database-fixture.js';
import { actionsOf, onWildcard, type Statement } from './iam-statements.js';
import { MSK_CLUSTER_ARN } from './kafka-consumer-fixture.js';

type Resource = { Type: string; Properties: Record<string, unknown>; DependsOn?: string[]; DeletionPolicy?: string };

/** What a test reads of a synthesized stack. */
function reader(stack: Stack) {
  const template = Template.fromStack(stack);
  const resources = template.toJSON().Resources as Record<string, Resource>;
  const idOf = (construct: { node: { defaultChild?: unknown } } | undefined, child?: unknown): string =>
    stack.resolve(((child ?? construct?.node.defaultChild) as { logicalId: string }).logicalId) as string;
  const statementsOfRole = (roleId: string): Statement[] => Object.values(resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy' && JSON.stringify(r.Properties.Roles) === JSON.stringify([{ Ref: roleId }]))
    .flatMap((r) => (r.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
  const statementsOf = (functionId: string) => statementsOfRole((resources[functionId]!.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0]);
  const secretsReadBy = (functionId: string) => statementsOf(functionId)
    .filter((s) => actionsOf(s).includes('secretsmanager:GetSecretValue')).map((s) => s.Resource);
  const environmentOf = (functionId: string) => (resources[functionId]!.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
  return { template, resources, idOf, statementsOf, secretsReadBy, environmentOf };
}

/** A JSON value the template builds with Fn::Join, each Ref in it written `<LogicalId>`. */
function joinedJson(value: unknown): unknown {
  const [, parts] = (value as { 'Fn::Join': [string, (string | { Ref: string })[]] })['Fn::Join'];
  return JSON.parse(parts.map((part) => (typeof part === 'string' ? part : `<${part.Ref}>`)).join(''));
}
const refOf = (stack: Stack, secret: { secretArn: string }) => `<${(stack.resolve(secret.secretArn) as { Ref: string }).Ref}>`;

describe('an InboxDatabase with every default: the cluster it makes', () => {
  const stack = bareStack();
  const database = new InboxDatabase(stack, 'Inbox');
  const { template, resources } = reader(stack);

  it('is Aurora PostgreSQL Serverless v2 at the pinned version, with the Data API, encrypted, pausing at 0 ACU after 5 minutes, and kept safe', () => {
    template.hasResourceProperties('AWS::RDS::DBCluster', {
      Engine: 'aurora-postgresql', EngineVersion: AURORA_POSTGRES_VERSION.auroraPostgresFullVersion, EnableHttpEndpoint: true, StorageEncrypted: true,
      DatabaseName: 'inbox', ServerlessV2ScalingConfiguration: { MinCapacity: 0, MaxCapacity: 2, SecondsUntilAutoPause: 300 },
      DeletionProtection: true, BackupRetentionPeriod: 7,
    });
    expect(Object.values(resources).filter((r) => r.Type === 'AWS::RDS::DBCluster').map((r) => r.DeletionPolicy)).toEqual(['Snapshot']);
    template.hasResourceProperties('AWS::RDS::DBInstance', { DBInstanceClass: 'db.serverless', AutoMinorVersionUpgrade: false, PubliclyAccessible: false });
    expect(database.databaseName).toBe('inbox');
    expect(database.clusterMaxCapacity).toBe(2);
  });

  it('lives in isolated subnets of a VPC with no NAT gateway, whose rejected traffic is logged', () => {
    template.resourceCountIs('AWS::EC2::NatGateway', 0);
    template.resourceCountIs('AWS::EC2::InternetGateway', 0);
    template.allResourcesProperties('AWS::EC2::Subnet', { MapPublicIpOnLaunch: false });
    template.hasResourceProperties('AWS::EC2::FlowLog', { TrafficType: 'REJECT' });
  });

  it('runs no function in the VPC: all of them reach the database through the Data API', () => {
    const functions = Object.values(resources).filter((r) => r.Type === 'AWS::Lambda::Function');
    expect(functions.length).toBeGreaterThanOrEqual(3);
    template.allResourcesProperties('AWS::Lambda::Function', { VpcConfig: Match.absent() });
  });

  it('takes other capacities, another VPC and removal settings for the cluster it makes', () => {
    const other = bareStack();
    const vpc = new ec2.Vpc(other, 'Own', { natGateways: 0, subnetConfiguration: [{ name: 'db', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }] });
    const made = new InboxDatabase(other, 'Inbox', { vpc, minCapacity: 0.5, maxCapacity: 8, deletionProtection: false, databaseName: 'shop' });
    const otherTemplate = Template.fromStack(other);
    otherTemplate.hasResourceProperties('AWS::RDS::DBCluster', {
      DatabaseName: 'shop', DeletionProtection: false, ServerlessV2ScalingConfiguration: { MinCapacity: 0.5, MaxCapacity: 8 },
    });
    otherTemplate.resourceCountIs('AWS::EC2::VPC', 1);
    expect(made.clusterMaxCapacity).toBe(8);
  });

  it('leaves no cdk-nag AwsSolutions finding unacknowledged, each acknowledgment with a reason of its own', () => {
    expect(unacknowledgedFindings(stack.node.root as never, stack)).toEqual([]);
    const acks = acknowledgments(stack);
    expect(acks.map((ack) => ack.rule.replace(/^Annotation::/, '').replace(/\[.*$/, '')).sort()).toEqual([
      // The made cluster (IAM database authentication, the owner secret), the migrations provider, the
      // cleanup schedule's DLQ, the cleanup and operator roles' rotations (two wildcards each).
      'AwsSolutions-IAM5', 'AwsSolutions-IAM5', 'AwsSolutions-IAM5', 'AwsSolutions-IAM5', 'AwsSolutions-IAM5', 'AwsSolutions-RDS6', 'AwsSolutions-SMG4', 'AwsSolutions-SQS3',
    ]);
    expect(new Set(acks.map((ack) => ack.reason)).size).toBe(acks.length);
  });
});

describe('an InboxDatabase\'s migrations', () => {
  const stack = bareStack();
  const database = new InboxDatabase(stack, 'Inbox', { migrations: REFERENCE_MIGRATIONS_DIR });
  const { template, resources, idOf, environmentOf, statementsOf } = reader(stack);
  const [migrations] = Object.values(template.findResources('Custom::InboxMigrations')) as Resource[];
  const migrateId = idOf(database.migrateFunction);

  it('run by a custom resource whose hash covers the kit\'s migrations and the project\'s, so a change of either runs them again', () => {
    expect(migrations!.Properties.MigrationsHash).toBe(migrationsHash(REFERENCE_MIGRATIONS_DIR));
    expect(migrationsHash(REFERENCE_MIGRATIONS_DIR)).not.toBe(migrationsHash());
    const kitOnly = bareStack();
    new InboxDatabase(kitOnly, 'Inbox');
    Template.fromStack(kitOnly).hasResourceProperties('Custom::InboxMigrations', { MigrationsHash: migrationsHash() });
  });

  it('carry the function\'s target and roles, so a replaced cluster, another database or another consumer runs them again and a rollback does nothing', () => {
    const environment = environmentOf(migrateId);
    expect(migrations!.Properties).toMatchObject({
      ClusterArn: environment[INBOX_ENV.clusterArn], DatabaseName: 'inbox', Roles: environment[INBOX_ENV.databaseRoles],
    });
    expect(environment[INBOX_ENV.secretArn]).toEqual(stack.resolve(database.ownerSecret.secretArn));
  });

  it('wait for the writer instance', () => {
    const writer = Object.keys(template.findResources('AWS::RDS::DBInstance'));
    expect(writer).toHaveLength(1);
    expect(migrations!.DependsOn).toContain(writer[0]);
  });

  it('are applied by a function that signs in as the owner, with the Data API calls its driver makes and no BatchExecuteStatement', () => {
    const dataApi = statementsOf(migrateId).filter((s) => actionsOf(s).some((action) => action.startsWith('rds-data:')));
    expect(dataApi.map((s) => actionsOf(s).sort())).toEqual([[...DATA_API_ACTIONS].sort()]);
    expect(onWildcard(statementsOf(migrateId))).toEqual([]);
    expect(resources[migrateId]!.Properties).toMatchObject({ Timeout: 300, Architectures: ['arm64'] });
  });
});

describe('consumers attached to an InboxDatabase', () => {
  const stack = bareStack();
  const database = new InboxDatabase(stack, 'Inbox', { rotateRoleSecretsAfter: Duration.days(14) });
  const orders = new InboxConsumer(stack, 'Orders', { database, entry: WORKER_ENTRY, queueProps: { fifo: true } });
  const shipping = new InboxKafkaConsumer(stack, 'ShipOrders', {
    database, entry: WORKER_ENTRY, source: { kind: 'msk', clusterArn: MSK_CLUSTER_ARN }, topic: 'orders', topicRetention: Duration.days(15),
    inboxRetention: Duration.days(30), onFailureReachable: true,
  });
  const payments = new InboxConsumer(stack, 'Payments', { database, entry: WORKER_ENTRY, databaseRole: 'payment_worker', clusterMaxCapacity: 1 });
  // What a consumer construct of the user's own would do: attach itself by the method the kit's consumers call.
  const ledger = database.addConsumer(Object.assign(new Construct(stack, 'Ledger'), { inboxRetention: Duration.days(3) }), { databaseRole: 'ledger' });
  const { template, resources, idOf, secretsReadBy, environmentOf } = reader(stack);
  const workerIds = { orders: idOf(orders.lambdaFunction), shipping: idOf(shipping.lambdaFunction) };
  const migrationsId = idOf(undefined, database.migrations.node.defaultChild);

  it('get a database role each, named after the construct unless told otherwise', () => {
    expect([orders.databaseRole, shipping.databaseRole, payments.databaseRole, ledger.name]).toEqual(['orders', 'ship_orders', 'payment_worker', 'ledger']);
    expect(ledger.twin).toBe('ledger_clone');
  });

  it('sign in with their role\'s secret, the only secret each may read, reach the database of their InboxDatabase, and wait for its migrations', () => {
    for (const [consumer, id] of [[orders, workerIds.orders], [shipping, workerIds.shipping]] as const) {
      expect(secretsReadBy(id)).toEqual([stack.resolve(consumer.secret.secretArn)]);
      expect(environmentOf(id)).toMatchObject({
        [INBOX_ENV.secretArn]: stack.resolve(consumer.secret.secretArn),
        [INBOX_ENV.clusterArn]: stack.resolve(database.cluster.clusterArn),
        [INBOX_ENV.databaseName]: 'inbox',
      });
      expect(resources[id]!.DependsOn).toContain(migrationsId);
    }
    expect(orders.secret).not.toBe(shipping.secret);
    Annotations.fromStack(stack).hasNoWarning('*', Match.stringLikeRegexp('the cluster\'s own secret'));
  });

  it('take their concurrency cap from the capacity of the cluster InboxDatabase made (2 ACU: 4 invocations)', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { ScalingConfig: { MaximumConcurrency: 4 } });
    Annotations.fromStack(stack).hasNoWarning('*', Match.stringLikeRegexp('No clusterMaxCapacity'));
  });

  it('are the roles the migrate function makes, each with its secret and access, the cleanup\'s among them, and it may read each of those secrets', () => {
    const migrateId = idOf(database.migrateFunction);
    expect(joinedJson(environmentOf(migrateId)[INBOX_ENV.databaseRoles])).toEqual({
      inbox_cleanup: { secretArn: refOf(stack, database.cleanupRole.secret), access: 'cleanup' },
      inbox_operator: { secretArn: refOf(stack, database.operatorRole.secret), access: 'operator' },
      orders: { secretArn: refOf(stack, orders.secret), access: 'consumer' },
      ship_orders: { secretArn: refOf(stack, shipping.secret), access: 'consumer' },
      payment_worker: { secretArn: refOf(stack, payments.secret), access: 'consumer' },
      ledger: { secretArn: refOf(stack, ledger.secret), access: 'consumer' },
    });
    const secrets = [orders.secret, shipping.secret, payments.secret, ledger.secret, database.cleanupRole.secret, database.operatorRole.secret]
      .map((secret) => stack.resolve(secret.secretArn));
    expect(secretsReadBy(migrateId)).toEqual(expect.arrayContaining([...secrets, stack.resolve(database.ownerSecret.secretArn)]));
    expect(secretsReadBy(migrateId)).toHaveLength(secrets.length + 1);
  });

  it('have their secrets generated as { username, password } of their role, and rotated on a schedule of their own after the migrations', () => {
    const schedules = Object.entries(template.findResources('AWS::SecretsManager::RotationSchedule'));
    const secretIds = [orders.secret, shipping.secret, database.cleanupRole.secret, database.operatorRole.secret, payments.secret, ledger.secret]
      .map((secret) => (stack.resolve(secret.secretArn) as { Ref: string }).Ref);
    expect(schedules.map(([, schedule]) => (schedule.Properties.SecretId as { Ref: string }).Ref).sort()).toEqual([...secretIds].sort());
    for (const [, schedule] of schedules) {
      expect(schedule.DependsOn).toContain(migrationsId);
      expect(schedule.Properties).toMatchObject({ RotationRules: { ScheduleExpression: 'rate(14 days)' } });
    }
    for (const [role, secretId] of [['orders', secretIds[0]], ['ship_orders', secretIds[1]], ['inbox_cleanup', secretIds[2]], ['inbox_operator', secretIds[3]]] as const) {
      expect(resources[secretId!]!.Properties).toMatchObject({
        GenerateSecretString: { GenerateStringKey: 'password', PasswordLength: 30, SecretStringTemplate: JSON.stringify({ username: role }) },
      });
    }
  });

  it('hold the cleanup to the longest inbox retention among them (the Kafka consumer\'s 30 days)', () => {
    expect(environmentOf(idOf(database.cleanupFunction))[INBOX_ENV.retentionDays]).toBe('30');
    expect(database.cleanupRetention.toDays()).toBe(30);
  });

  it('leave no cdk-nag finding unacknowledged, and no role secret goes unrotated', () => {
    expect(unacknowledgedFindings(stack.node.root as never, stack)).toEqual([]);
    expect(acknowledgments(stack).filter((ack) => ack.rule.endsWith('AwsSolutions-SMG4')).map((ack) => ack.path)).toEqual(['DatabaseTest/Inbox/Cluster/Secret']);
  });
});

describe('the cleanup of an InboxDatabase', () => {
  const stack = bareStack();
  const database = new InboxDatabase(stack, 'Inbox', { cleanupBatchSize: 500, metricsNamespace: 'Shop' });
  const { template, idOf, secretsReadBy, environmentOf, statementsOf } = reader(stack);
  const cleanupId = idOf(database.cleanupFunction);

  it('runs daily by default, with its retention and batch size in its environment, and a DLQ for runs EventBridge gave up on', () => {
    expect(environmentOf(cleanupId)).toMatchObject({
      [INBOX_ENV.retentionDays]: '25', [INBOX_ENV.cleanupBatchSize]: '500', POWERTOOLS_METRICS_NAMESPACE: 'Shop', POWERTOOLS_SERVICE_NAME: 'inbox-cleanup',
    });
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'cron(17 3 * * ? *)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [cleanupId, 'Arn'] }, RetryPolicy: { MaximumRetryAttempts: 2 }, DeadLetterConfig: Match.anyValue() })],
    });
  });

  it('leaves the outbox alone unless told how long to keep its dispatched rows', () => {
    expect(environmentOf(cleanupId)[INBOX_ENV.outboxRetentionDays]).toBeUndefined();
    const withOutbox = bareStack();
    const kept = new InboxDatabase(withOutbox, 'Inbox', { outboxRetention: Duration.days(3) });
    const { environmentOf: envOf, idOf: idIn } = reader(withOutbox);
    expect(envOf(idIn(kept.cleanupFunction))[INBOX_ENV.outboxRetentionDays]).toBe('3');
  });

  it('keeps kept messages 90 days unless told otherwise', () => {
    expect(environmentOf(cleanupId)[INBOX_ENV.keptRetentionDays]).toBe('90');
    const longer = bareStack();
    const database = new InboxDatabase(longer, 'Inbox', { keptRetention: Duration.days(180) });
    const { environmentOf: envOf, idOf: idIn } = reader(longer);
    expect(envOf(idIn(database.cleanupFunction))[INBOX_ENV.keptRetentionDays]).toBe('180');
  });

  it('signs in as its own role, may read that secret alone and make single statements only', () => {
    expect(database.cleanupRole.name).toBe('inbox_cleanup');
    expect(secretsReadBy(cleanupId)).toEqual([stack.resolve(database.cleanupRole.secret.secretArn)]);
    const dataApi = statementsOf(cleanupId).filter((s) => actionsOf(s).some((action) => action.startsWith('rds-data:')));
    expect(dataApi.map(actionsOf)).toEqual([['rds-data:ExecuteStatement']]);
  });

  it('has its four alarms, which take the construct\'s alarm actions', () => {
    expect(Object.keys(database.cleanupAlarms).sort()).toEqual(['backlog', 'errors', 'notRunning', 'scheduleFailed']);
    const withTopic = bareStack();
    const topic = new sns.Topic(withTopic, 'Alarms');
    new InboxDatabase(withTopic, 'Inbox', { alarmTopic: topic });
    const alarms = Object.values(Template.fromStack(withTopic).findResources('AWS::CloudWatch::Alarm'));
    expect(alarms).toHaveLength(4);
    for (const alarm of alarms) expect(alarm.Properties.AlarmActions).toEqual([{ Ref: withTopic.getLogicalId(topic.node.defaultChild as never) }]);
  });
});

describe('an InboxDatabase on a cluster of the user\'s', () => {
  const stack = bareStack();
  const vpc = new ec2.Vpc(stack, 'Vpc', { natGateways: 0, subnetConfiguration: [{ name: 'db', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }] });
  const cluster = new rds.DatabaseCluster(stack, 'Db', {
    engine: rds.DatabaseClusterEngine.auroraPostgres({ version: rds.AuroraPostgresEngineVersion.VER_16_4 }),
    writer: rds.ClusterInstance.serverlessV2('writer'), vpc, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
    defaultDatabaseName: 'shop', serverlessV2MaxCapacity: 4,
  });
  const database = new InboxDatabase(stack, 'Inbox', { cluster });
  const orders = new InboxConsumer(stack, 'Orders', { database, entry: WORKER_ENTRY });
  const { template } = reader(stack);

  it('reads the database name and the capacity of a cluster made in the app, and switches its Data API on', () => {
    expect(database.databaseName).toBe('shop');
    expect(database.clusterMaxCapacity).toBe(4);
    template.hasResourceProperties('AWS::RDS::DBCluster', { EnableHttpEndpoint: true, DatabaseName: 'shop' });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { ScalingConfig: { MaximumConcurrency: 8 } });
    expect(orders.databaseRole).toBe('orders');
  });

  it('makes no cluster of its own and signs the migrations in with the cluster\'s secret', () => {
    template.resourceCountIs('AWS::RDS::DBCluster', 1);
    expect(database.ownerSecret).toBe(cluster.secret);
  });
});

describe('a consumer without an InboxDatabase', () => {
  it('still signs in with the cluster\'s own secret, and the warning points at InboxDatabase', () => {
    const stack = bareStack();
    const vpc = new ec2.Vpc(stack, 'Vpc', { natGateways: 0, subnetConfiguration: [{ name: 'db', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }] });
    const cluster = new rds.DatabaseCluster(stack, 'Db', {
      engine: rds.DatabaseClusterEngine.auroraPostgres({ version: AURORA_POSTGRES_VERSION }),
      writer: rds.ClusterInstance.serverlessV2('writer'), vpc, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
    });
    const orders = new InboxConsumer(stack, 'Orders', { cluster, databaseName: 'inbox', entry: WORKER_ENTRY });
    expect(orders.secret).toBe(cluster.secret);
    expect(orders.databaseRole).toBeUndefined();
    const warnings = Annotations.fromStack(stack).findWarning('/DatabaseTest/Orders', Match.stringLikeRegexp('the owner\'s credentials'));
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(warnings[0]!.entry.data)).toMatch(/Attach the consumer to an InboxDatabase instead \(sqs-inbox\/cdk; database: inboxDatabase\)/);
    expect(JSON.stringify(warnings[0]!.entry.data)).toContain(INBOX_WARNINGS.clusterOwnerSecret);
  });
});
