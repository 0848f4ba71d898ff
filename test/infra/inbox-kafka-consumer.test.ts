import { Duration, Validations } from 'aws-cdk-lib';
import type { App, Stack } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import type { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sources from 'aws-cdk-lib/aws-lambda-event-sources';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { INBOX_WARNINGS } from '../../lib/shared/warnings.js';
import { INBOX_RUNTIME } from '../../lib/inbox-runtime.js';
import { KAFKA_POLLER_NETWORK_ACTIONS } from '../../lib/kafka/kafka-event-source.js';
import type { InboxKafkaConsumerProps } from '../../lib/kafka/inbox-kafka-consumer-props.js';
import { MSK_CLUSTER_ARN, kafkaConsumer } from './kafka-consumer-fixture.js';
import type { KafkaBuild } from './kafka-consumer-fixture.js';
import { actionsOf, onWildcard } from './iam-statements.js';
import type { Statement } from './iam-statements.js';


/** The statements of the consumer function's role (its one policy). */
function roleStatements(template: Template): Statement[] {
  const policies = Object.values(template.findResources('AWS::IAM::Policy', {
    Properties: { Roles: [{ Ref: Match.stringLikeRegexp('^OrdersFunctionRole') }] },
  }));
  expect(policies).toHaveLength(1);
  return policies[0]!.Properties.PolicyDocument.Statement as Statement[];
}
const withActionPrefix = (statements: Statement[], prefix: string): Statement[] => statements.filter((s) => actionsOf(s).some((a) => a.startsWith(prefix)));
const mapping = (template: Template) => {
  const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping'));
  expect(mappings).toHaveLength(1);
  return mappings[0]!.Properties as Record<string, unknown>;
};
const alarmsNamed = (template: Template, description: RegExp) =>
  Object.values(template.findResources('AWS::CloudWatch::Alarm', { Properties: { AlarmDescription: Match.stringLikeRegexp(description.source) } }));
const logicalIdOf = (build: KafkaBuild, construct: { node: { defaultChild?: unknown } }): string =>
  build.stack.getLogicalId(construct.node.defaultChild as sqs.CfnQueue);

describe('InboxKafkaConsumer on Amazon MSK, with the defaults', () => {
  let build: KafkaBuild;
  beforeAll(() => {
    build = kafkaConsumer();
  });

  it('maps the topic in provisioned mode with partial batch responses, 10 retries and no bisecting', () => {
    build.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: MSK_CLUSTER_ARN,
      Topics: ['orders'],
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ProvisionedPollerConfig: { MinimumPollers: 1, MaximumPollers: Match.absent() },
      MaximumRetryAttempts: 10,
      BisectBatchOnFunctionError: false,
      MaximumRecordAgeInSeconds: Match.absent(),
      SourceAccessConfigurations: Match.absent(),
      SelfManagedEventSource: Match.absent(),
    });
  });

  it('starts a new consumer group from TRIM_HORIZON, 100 records a batch, in a group named after the construct', () => {
    build.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 100,
      AmazonManagedKafkaEventSourceConfig: { ConsumerGroupId: build.consumer.consumerGroupId },
    });
    expect(build.consumer.consumerGroupId).toMatch(/^ConsumerTest-Orders-[0-9A-F]{8}$/);
  });

  it('sends failures to an encrypted, TLS-only SQS queue of its own that keeps them 14 days', () => {
    const queueId = logicalIdOf(build, build.consumer.onFailureQueue as sqs.Queue);
    expect(mapping(build.template).DestinationConfig).toEqual({ OnFailure: { Destination: { 'Fn::GetAtt': [queueId, 'Arn'] } } });
    build.template.hasResourceProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 86_400 });
    build.template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: queueId }],
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) },
    });
    const [send] = withActionPrefix(roleStatements(build.template), 'sqs:');
    expect(actionsOf(send!)).toContain('sqs:SendMessage');
    expect(send!.Resource).toEqual({ 'Fn::GetAtt': [queueId, 'Arn'] });
  });

  it('runs the function on the pinned runtime with the Data API target and the Powertools names', () => {
    build.template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: INBOX_RUNTIME.name,
      Architectures: ['arm64'],
      Timeout: 30,
      MemorySize: 256,
      Environment: {
        Variables: Match.objectLike({
          CLUSTER_ARN: Match.anyValue(),
          SECRET_ARN: Match.anyValue(),
          DATABASE_NAME: 'inbox',
          POWERTOOLS_SERVICE_NAME: 'Orders',
          POWERTOOLS_METRICS_NAMESPACE: 'SqsInbox',
        }),
      },
    });
  });

  it('warns that no poller cap could be derived without clusterMaxCapacity', () => {
    Annotations.fromStack(build.stack).hasWarning('/ConsumerTest/Orders', Match.stringLikeRegexp('clusterMaxCapacity'));
  });
});

describe('the role of a consumer on MSK with IAM access control', () => {
  let statements: Statement[];
  let template: Template;
  let consumerGroupId: string;
  beforeAll(() => {
    const build = kafkaConsumer();
    ({ template } = build);
    ({ consumerGroupId } = build.consumer);
    statements = roleStatements(template);
  });

  it('uses no AWS managed policy (the CDK\'s ManagedKafkaEventSource would attach AWSLambdaMSKExecutionRole)', () => {
    for (const role of Object.values(template.findResources('AWS::IAM::Role'))) expect(role.Properties.ManagedPolicyArns).toBeUndefined();
  });

  it('may describe the MSK cluster and find its brokers, on that cluster only', () => {
    const [find] = statements.filter((s) => s.Sid === 'MskFindBrokers');
    expect(actionsOf(find!).sort()).toEqual(['kafka:DescribeClusterV2', 'kafka:GetBootstrapBrokers']);
    expect(find!.Resource).toBe(MSK_CLUSTER_ARN);
  });

  it('may connect to the cluster, read its topic and use its own consumer group, named exactly', () => {
    const bySid = Object.fromEntries(withActionPrefix(statements, 'kafka-cluster:').map((s) => [s.Sid, s]));
    expect(bySid.MskIamConnect!.Resource).toBe(MSK_CLUSTER_ARN);
    expect(bySid.MskIamReadTopic!.Resource).toBe('arn:aws:kafka:eu-west-1:123456789012:topic/orders-cluster/0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0-2/orders');
    expect(actionsOf(bySid.MskIamReadTopic!).sort()).toEqual(['kafka-cluster:DescribeTopic', 'kafka-cluster:ReadData']);
    expect(bySid.MskIamConsumerGroup!.Resource).toBe(`arn:aws:kafka:eu-west-1:123456789012:group/orders-cluster/0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0-2/${consumerGroupId}`);
    expect(actionsOf(bySid.MskIamConsumerGroup!).sort()).toEqual(['kafka-cluster:AlterGroup', 'kafka-cluster:DescribeGroup']);
    expect(actionsOf(bySid.MskIamConnect!).sort()).toEqual(['kafka-cluster:Connect', 'kafka-cluster:DescribeClusterDynamicConfiguration']);
    expect(statements.flatMap(actionsOf)).not.toContain('kafka-cluster:WriteData');
  });

  it('reads only the database secret, and reaches the Data API of the cluster only', () => {
    const secrets = withActionPrefix(statements, 'secretsmanager:');
    expect(secrets).toHaveLength(1);
    expect(JSON.stringify(secrets[0]!.Resource)).toMatch(/"Ref":"DbSecretAttachment/);
    const dataApi = withActionPrefix(statements, 'rds-data:');
    expect(dataApi).toHaveLength(1);
    expect(JSON.stringify(dataApi[0]!.Resource)).toContain(':cluster:');
  });

  it('grants * only for the six network interface actions of the pollers', () => {
    const wildcard = onWildcard(statements);
    expect(wildcard).toHaveLength(1);
    expect(wildcard[0]!.Resource).toBe('*');
    expect(actionsOf(wildcard[0]!).sort()).toEqual([...KAFKA_POLLER_NETWORK_ACTIONS].sort());
  });
});

describe('a consumer on MSK with SASL/SCRAM', () => {
  it('signs in with the secret, may read it, and gets no kafka-cluster permissions', () => {
    const { template, stack } = kafkaConsumer(({ stack }) => ({
      source: { kind: 'msk', clusterArn: MSK_CLUSTER_ARN, secret: new secretsmanager.Secret(stack, 'ScramSecret') },
    }));
    const secretId = stack.resolve((stack.node.findChild('ScramSecret') as secretsmanager.Secret).secretArn) as { Ref: string };
    expect(mapping(template).SourceAccessConfigurations).toEqual([{ Type: 'SASL_SCRAM_512_AUTH', URI: secretId }]);
    const statements = roleStatements(template);
    expect(withActionPrefix(statements, 'kafka-cluster:')).toEqual([]);
    expect(withActionPrefix(statements, 'secretsmanager:').map((s) => s.Resource)).toEqual(expect.arrayContaining([secretId]));
  });
});

describe('a consumer on self-managed Kafka', () => {
  it('reaches brokers over the internet with their credentials, without network interface or kafka permissions', () => {
    const { template, consumer } = kafkaConsumer(({ stack }) => ({
      source: {
        kind: 'self-managed', bootstrapServers: ['b-1.example.com:9096', 'b-2.example.com:9096'],
        secret: new secretsmanager.Secret(stack, 'BrokerSecret'), authenticationMethod: sources.AuthenticationMethod.BASIC_AUTH,
      },
    }));
    const properties = mapping(template);
    expect(properties.SelfManagedEventSource).toEqual({ Endpoints: { KafkaBootstrapServers: ['b-1.example.com:9096', 'b-2.example.com:9096'] } });
    expect(properties.EventSourceArn).toBeUndefined();
    expect(properties.SelfManagedKafkaEventSourceConfig).toEqual({ ConsumerGroupId: consumer.consumerGroupId });
    expect(properties.SourceAccessConfigurations).toEqual([{ Type: 'BASIC_AUTH', URI: { Ref: expect.stringMatching(/^BrokerSecret/) } }]);
    expect(properties.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    const statements = roleStatements(template);
    expect(onWildcard(statements)).toEqual([]);
    expect(withActionPrefix(statements, 'kafka')).toEqual([]);
    expect(withActionPrefix(statements, 'secretsmanager:')).toHaveLength(2);
  });

  it('reaches brokers in a VPC from its subnets with the security group, and may manage the pollers\' network interfaces', () => {
    const { template } = kafkaConsumer(({ stack, cluster }) => ({
      source: {
        kind: 'self-managed', bootstrapServers: ['10.0.0.10:9092'], vpc: cluster.vpc,
        vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
        securityGroup: new ec2.SecurityGroup(stack, 'Pollers', { vpc: cluster.vpc }),
        rootCACertificate: new secretsmanager.Secret(stack, 'BrokerCa'),
      },
    }));
    const access = mapping(template).SourceAccessConfigurations as { Type: string }[];
    expect(access.map((a) => a.Type).sort()).toEqual(['SERVER_ROOT_CA_CERTIFICATE', 'VPC_SECURITY_GROUP', 'VPC_SUBNET', 'VPC_SUBNET']);
    const statements = roleStatements(template);
    expect(onWildcard(statements).map((s) => actionsOf(s).sort())).toEqual([[...KAFKA_POLLER_NETWORK_ACTIONS].sort()]);
    expect(withActionPrefix(statements, 'secretsmanager:')).toHaveLength(2);
  });
});

describe('provisioned pollers', () => {
  const pollers = (overrides: Partial<InboxKafkaConsumerProps>) => mapping(kafkaConsumer(() => overrides).template).ProvisionedPollerConfig;

  it('cap the maximum at 2 invocations per ACU of clusterMaxCapacity, 5 invocations per poller, at least 1', () => {
    expect(pollers({ clusterMaxCapacity: 16 })).toEqual({ MinimumPollers: 1, MaximumPollers: 6 });
    expect(pollers({ clusterMaxCapacity: 4 })).toEqual({ MinimumPollers: 1, MaximumPollers: 1 });
    expect(pollers({ clusterMaxCapacity: 256 })).toEqual({ MinimumPollers: 1, MaximumPollers: 102 });
  });

  it('take what is given, poller group included', () => {
    expect(pollers({ clusterMaxCapacity: 16, provisionedPollers: { minimumPollers: 2, maximumPollers: 20, pollerGroupName: 'inbox' } }))
      .toEqual({ MinimumPollers: 2, MaximumPollers: 20, PollerGroupName: 'inbox' });
  });

  it('need no warning once the cap is known', () => {
    const { stack } = kafkaConsumer(() => ({ clusterMaxCapacity: 8 }));
    Annotations.fromStack(stack).hasNoWarning('/ConsumerTest/Orders', Match.stringLikeRegexp('clusterMaxCapacity'));
  });
});

describe('retries, record age, bisecting and the starting position', () => {
  it('are rendered as given', () => {
    const properties = mapping(kafkaConsumer(() => ({
      retryAttempts: 50, maxRecordAge: Duration.hours(6), bisectBatchOnError: true, batchSize: 500,
      startingPosition: lambda.StartingPosition.LATEST, maxBatchingWindow: Duration.seconds(2), consumerGroupId: 'ship-orders',
    })).template);
    expect(properties).toMatchObject({
      MaximumRetryAttempts: 50, MaximumRecordAgeInSeconds: 21_600, BisectBatchOnFunctionError: true, BatchSize: 500,
      StartingPosition: 'LATEST', MaximumBatchingWindowInSeconds: 2, AmazonManagedKafkaEventSourceConfig: { ConsumerGroupId: 'ship-orders' },
    });
  });

  it('take AT_TIMESTAMP with its timestamp', () => {
    const properties = mapping(kafkaConsumer(() => ({ startingPosition: lambda.StartingPosition.AT_TIMESTAMP, startingPositionTimestamp: 1_767_225_600 })).template);
    expect(properties).toMatchObject({ StartingPosition: 'AT_TIMESTAMP', StartingPositionTimestamp: 1_767_225_600 });
  });
});

describe('on-failure destinations given', () => {
  it('an SQS queue of this app is used as is, alarmed on, and no queue is made', () => {
    const build = kafkaConsumer(({ stack }) => ({
      onFailure: new sources.SqsDlq(new sqs.Queue(stack, 'Failures', { retentionPeriod: Duration.days(7), enforceSSL: true })),
    }));
    expect(build.template.findResources('AWS::SQS::Queue')).toEqual({ [logicalIdOf(build, build.stack.node.findChild('Failures') as sqs.Queue)]: expect.anything() });
    expect(build.consumer.onFailureQueue).toBe(build.stack.node.findChild('Failures'));
    expect(alarmsNamed(build.template, /on-failure queue holds/)).toHaveLength(1);
    Annotations.fromStack(build.stack).hasNoWarning('/ConsumerTest/Orders', Match.stringLikeRegexp('retention'));
  });

  it('a Kafka topic of the cluster gets the records, with write access to that topic alone', () => {
    const { template, consumer, stack } = kafkaConsumer(() => ({ onFailure: new sources.KafkaDlq('orders-failed') }));
    expect(mapping(template).DestinationConfig).toEqual({ OnFailure: { Destination: 'kafka://orders-failed' } });
    const [write] = roleStatements(template).filter((s) => actionsOf(s).includes('kafka-cluster:WriteData'));
    expect(write!.Resource).toBe('arn:aws:kafka:eu-west-1:123456789012:topic/orders-cluster/0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0-2/orders-failed');
    expect(consumer.onFailureQueue).toBeUndefined();
    expect(consumer.alarms.onFailureQueueNotEmpty).toBeUndefined();
    Annotations.fromStack(stack).hasWarning('/ConsumerTest/Orders', Match.stringLikeRegexp('How long the on-failure destination \\(a kafka destination\\) keeps a failed record cannot be read'));
    Annotations.fromStack(stack).hasNoWarning('/ConsumerTest/Orders', Match.stringLikeRegexp('VPC endpoint'));
  });

  it('an SNS topic or an S3 bucket is passed through; S3 keeps the records for a time it cannot read, and says so', () => {
    const sns_ = kafkaConsumer(({ stack }) => ({ onFailure: new sources.SnsDlq(new sns.Topic(stack, 'Failures')), onFailureReachable: true }));
    const s3_ = kafkaConsumer(({ stack }) => ({ onFailure: new sources.S3OnFailureDestination(new s3.Bucket(stack, 'Failures')), onFailureReachable: true }));
    for (const { template } of [sns_, s3_]) {
      expect(JSON.stringify(mapping(template).DestinationConfig)).toMatch(/Failures/);
      expect(template.findResources('AWS::SQS::Queue')).toEqual({});
    }
    Annotations.fromStack(s3_.stack).hasWarning('/ConsumerTest/Orders', Match.stringLikeRegexp('\\(a s3 destination\\) keeps a failed record cannot be read'));
    Annotations.fromStack(sns_.stack).hasNoWarning('/ConsumerTest/Orders', Match.stringLikeRegexp('cannot be read'));
  });

  it('an imported SQS queue gets the alarm on its first notice, and a warning that no alarm watches a notice expire', () => {
    const { consumer, stack } = kafkaConsumer(({ stack }) => ({
      onFailure: new sources.SqsDlq(sqs.Queue.fromQueueArn(stack, 'Failures', 'arn:aws:sqs:eu-west-1:123456789012:failures')), onFailureReachable: true,
    }));
    expect(consumer.alarms.onFailureQueueNotEmpty).toBeDefined();
    expect(consumer.alarms.onFailureQueueAge).toBeUndefined();
    Annotations.fromStack(stack).hasWarning('/ConsumerTest/Orders', Match.stringLikeRegexp("on-failure queue's retention cannot be read at synth time, so no alarm watches a failure notice expire"));
  });
});

describe('a network path from the Kafka cluster\'s VPC to the on-failure destination', () => {
  const unreachable = Match.stringLikeRegexp('from the pollers in the Kafka cluster\'s VPC, which needs a VPC endpoint for that service');

  it('is warned about for MSK with the default SQS queue, by its id', () => {
    const { stack } = kafkaConsumer();
    const [warning, ...others] = Annotations.fromStack(stack).findWarning('/ConsumerTest/Orders', unreachable);
    expect(others).toEqual([]);
    expect(String(warning!.entry.data)).toContain(`[ack: ${INBOX_WARNINGS.onFailureUnreachable}]`);
    expect(String(warning!.entry.data)).toContain('(a sqs destination)');
  });

  it('is taken as given with onFailureReachable', () => {
    const { stack } = kafkaConsumer(() => ({ onFailureReachable: true }));
    Annotations.fromStack(stack).hasNoWarning('/ConsumerTest/Orders', unreachable);
  });

  it('is needed for self-managed brokers in a VPC, not for brokers over the internet, nor for a KafkaDlq topic of the cluster', () => {
    const inVpc = kafkaConsumer(({ stack, cluster }) => ({
      source: { kind: 'self-managed', bootstrapServers: ['10.0.0.10:9092'], vpc: cluster.vpc, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
        securityGroup: new ec2.SecurityGroup(stack, 'Pollers', { vpc: cluster.vpc }) },
    }));
    const overInternet = kafkaConsumer(({ stack }) => ({ source: { kind: 'self-managed', bootstrapServers: ['b-1.example.com:9096'], secret: new secretsmanager.Secret(stack, 'Broker') } }));
    const kafkaTopic = kafkaConsumer(() => ({ onFailure: new sources.KafkaDlq('orders-failed') }));
    Annotations.fromStack(inVpc.stack).hasWarning('/ConsumerTest/Orders', unreachable);
    Annotations.fromStack(overInternet.stack).hasNoWarning('/ConsumerTest/Orders', unreachable);
    Annotations.fromStack(kafkaTopic.stack).hasNoWarning('/ConsumerTest/Orders', unreachable);
  });
});

describe('the alarms', () => {
  let build: KafkaBuild;
  beforeAll(() => {
    build = kafkaConsumer(({ stack }) => ({ alarmTopic: new sns.Topic(stack, 'Alarms'), offsetLagThreshold: 5000 }));
  });

  it('watch Lambda\'s OffsetLag of the function, its highest over 5 minutes, for 15 minutes', () => {
    const functionId = build.stack.getLogicalId(build.consumer.lambdaFunction.node.defaultChild as lambda.CfnFunction);
    build.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda', MetricName: 'OffsetLag', Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId } }],
      Statistic: 'Maximum', Period: 300, Threshold: 5000, EvaluationPeriods: 3, DatapointsToAlarm: 3,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold', TreatMissingData: 'notBreaching',
    });
  });

  it('fire on the first failure notice in the on-failure queue', () => {
    const queueId = logicalIdOf(build, build.consumer.onFailureQueue as sqs.Queue);
    build.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible', Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }], Threshold: 1,
    });
  });

  it('watch the runtime\'s collisions, rejected records, duplicate and failed rates under the service dimension', () => {
    build.template.hasResourceProperties('AWS::CloudWatch::Alarm', { Namespace: 'SqsInbox', MetricName: 'collision', Dimensions: [{ Name: 'service', Value: 'Orders' }], Threshold: 1 });
    build.template.hasResourceProperties('AWS::CloudWatch::Alarm', { Namespace: 'SqsInbox', MetricName: 'rejected', Threshold: 1 });
    const [failedRate] = alarmsNamed(build.template, /failed records are over 5 %/);
    expect(failedRate!.Properties).toMatchObject({ Threshold: 0.05, EvaluationPeriods: 3, DatapointsToAlarm: 2 });
    expect(JSON.stringify(failedRate!.Properties.Metrics)).toContain('FILL(failed, 0) / (FILL(processed, 0) + FILL(duplicate, 0) + FILL(failed, 0))');
    expect(alarmsNamed(build.template, /duplicates are over 10 %/)).toHaveLength(1);
  });

  it('watch the function\'s errors and throttles', () => {
    build.template.hasResourceProperties('AWS::CloudWatch::Alarm', { Namespace: 'AWS/Lambda', MetricName: 'Errors', Statistic: 'Sum', Threshold: 1 });
    build.template.hasResourceProperties('AWS::CloudWatch::Alarm', { Namespace: 'AWS/Lambda', MetricName: 'Throttles', Statistic: 'Sum', Threshold: 1 });
  });

  it('fire before a failure notice expires: at 70 % of the on-failure queue\'s 14 days', () => {
    const queueId = logicalIdOf(build, build.consumer.onFailureQueue as sqs.Queue);
    build.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateAgeOfOldestMessage', Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }],
      Statistic: 'Maximum', Threshold: 846_720, // 9.8 days
      AlarmDescription: Match.stringLikeRegexp('in the on-failure queue, 70 % of the 14 days'),
    });
  });

  it('all notify the alarm topic: nine of them', () => {
    const alarms = Object.values(build.template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms).toHaveLength(9);
    expect(Object.keys(build.consumer.alarms).sort()).toEqual(
      ['collisions', 'duplicateRate', 'failedRate', 'functionErrors', 'offsetLag', 'onFailureQueueAge', 'onFailureQueueNotEmpty', 'rejected', 'throttles']);
    for (const alarm of alarms) expect(alarm.Properties.AlarmActions).toEqual([{ Ref: expect.stringMatching(/^Alarms/) }]);
  });
});

/** cdk-nag's AwsSolutions findings on the consumer's own constructs (the fixture's VPC and cluster are not judged here). */
function consumerFindings(app: App, stack: Stack, acknowledged: boolean): string[] {
  const pack = new AwsSolutionsChecks(app);
  // The pack's own check, switched off: what it would report if nothing were acknowledged.
  if (!acknowledged) Object.defineProperty(pack, 'isAcknowledged', { value: () => false });
  return pack.validateScope(stack).violations
    .flatMap((violation) => violation.violatingResources.map((resource) => `${violation.ruleName} at ${resource.constructPath}`))
    .filter((finding) => finding.includes(' at ConsumerTest/Orders/'));
}

/** The AwsSolutions acknowledgments recorded on the consumer's constructs, with their reasons. */
function acknowledgments(stack: Stack): { path: string; rule: string; reason: unknown }[] {
  return stack.node.findAll().filter((construct) => construct.node.path.startsWith('ConsumerTest/Orders')).flatMap((construct) => construct.node.metadata
    .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
    .flatMap((entry) => Object.entries(entry.data as Record<string, unknown>))
    .map(([rule, reason]) => ({ path: construct.node.path, rule: rule.replace(/^Annotation::/, ''), reason })));
}

describe('cdk-nag AwsSolutions on the consumer', () => {
  const variants: Record<string, (scope: { stack: Stack; cluster: { vpc: ec2.IVpc } }) => Partial<InboxKafkaConsumerProps>> = {
    'MSK with IAM': () => ({}),
    'MSK with SASL/SCRAM and a Kafka destination': ({ stack }) => ({
      source: { kind: 'msk', clusterArn: MSK_CLUSTER_ARN, secret: new secretsmanager.Secret(stack, 'ScramSecret') }, onFailure: new sources.KafkaDlq('orders-failed'),
    }),
    'self-managed over the internet': ({ stack }) => ({ source: { kind: 'self-managed', bootstrapServers: ['b-1.example.com:9096'], secret: new secretsmanager.Secret(stack, 'BrokerSecret') } }),
    'self-managed in a VPC': ({ stack, cluster }) => ({
      source: {
        kind: 'self-managed', bootstrapServers: ['10.0.0.10:9092'], vpc: cluster.vpc, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
        securityGroup: new ec2.SecurityGroup(stack, 'Pollers', { vpc: cluster.vpc }),
      },
    }),
  };

  const expectedAcks: Record<string, string[]> = {
    'MSK with IAM': ['AwsSolutions-IAM5[Resource::*]', 'AwsSolutions-SQS3'],
    'MSK with SASL/SCRAM and a Kafka destination': ['AwsSolutions-IAM5[Resource::*]'],
    'self-managed over the internet': ['AwsSolutions-SQS3'],
    'self-managed in a VPC': ['AwsSolutions-IAM5[Resource::*]', 'AwsSolutions-SQS3'],
  };

  for (const [name, overrides] of Object.entries(variants)) {
    describe(name, () => {
      let build: KafkaBuild;
      beforeAll(() => {
        build = kafkaConsumer(overrides);
      });

      it('leaves no finding unacknowledged', () => {
        expect(consumerFindings(build.stack.node.root as App, build.stack, true)).toEqual([]);
      });

      it('acknowledges only findings cdk-nag does report, each with a reason of its own', () => {
        const unacknowledged = consumerFindings(build.stack.node.root as App, build.stack, false);
        const acks = acknowledgments(build.stack);
        expect(acks.map((ack) => ack.rule).sort()).toEqual(expectedAcks[name]);
        for (const ack of acks) {
          expect(unacknowledged.some((finding) => finding.startsWith(`${ack.rule} at ${ack.path}/`))).toBe(true);
          expect(typeof ack.reason).toBe('string');
          expect((ack.reason as string).length).toBeGreaterThan(60);
        }
        expect(new Set(acks.map((ack) => ack.reason)).size).toBe(acks.length);
      });

      it('says true things in its reasons: * only for the six network actions; the acknowledged queue is the mapping\'s on-failure destination', () => {
        for (const ack of acknowledgments(build.stack)) {
          if (ack.rule === 'AwsSolutions-IAM5[Resource::*]') {
            const wildcard = onWildcard(roleStatements(build.template));
            expect(wildcard.map((s) => actionsOf(s).sort())).toEqual([[...KAFKA_POLLER_NETWORK_ACTIONS].sort()]);
          } else if (ack.rule === 'AwsSolutions-SQS3') {
            const queueId = logicalIdOf(build, build.consumer.onFailureQueue as sqs.Queue);
            expect(mapping(build.template).DestinationConfig).toEqual({ OnFailure: { Destination: { 'Fn::GetAtt': [queueId, 'Arn'] } } });
            expect(JSON.stringify(build.template.findResources('AWS::Lambda::EventSourceMapping'))).not.toContain(`"EventSourceArn":{"Fn::GetAtt":["${queueId}"`);
          } else {
            throw new Error(`an acknowledgment this test does not know: ${ack.rule} at ${ack.path}`);
          }
        }
      });
    });
  }
});
