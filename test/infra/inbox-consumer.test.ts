import { Duration } from 'aws-cdk-lib';
import type { Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as rds from 'aws-cdk-lib/aws-rds';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { INBOX_RUNTIME } from '../../lib/inbox-runtime.js';
import { InboxConsumer } from '../../lib/sqs/inbox-consumer.js';
import { baseProps, clusterStack, consumerTemplate } from './consumer-fixture.js';
import { actionsOf, onWildcard, resourcesOf } from './iam-statements.js';
import type { Statement } from './iam-statements.js';

const queues = (template: Template) => Object.values(template.findResources('AWS::SQS::Queue'));
const alarmsNamed = (template: Template, description: RegExp) =>
  Object.values(template.findResources('AWS::CloudWatch::Alarm', { Properties: { AlarmDescription: Match.stringLikeRegexp(description.source) } }));
const DAY = 86_400;

describe('InboxConsumer defaults (standard queue)', () => {
  let template: Template;
  let consumer: InboxConsumer;
  let stack: Stack;
  beforeAll(() => {
    ({ template, consumer, stack } = consumerTemplate());
  });

  it('makes a standard queue and a standard DLQ, both SQS-encrypted', () => {
    expect(queues(template)).toHaveLength(2);
    for (const queue of queues(template)) {
      expect(queue.Properties.SqsManagedSseEnabled).toBe(true);
      expect(queue.Properties.FifoQueue).toBeUndefined();
    }
    expect(consumer.fifo).toBe(false);
  });

  it('sends a message to the DLQ after 5 receives; the DLQ keeps it 14 days', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      RedrivePolicy: { maxReceiveCount: 5, deadLetterTargetArn: Match.anyValue() },
    });
    template.hasResourceProperties('AWS::SQS::Queue', { MessageRetentionPeriod: 14 * 24 * 3600 });
  });

  it('sets the visibility timeout to 6 x the 30 s function timeout', () => {
    template.hasResourceProperties('AWS::SQS::Queue', { VisibilityTimeout: 180, RedrivePolicy: Match.anyValue() });
    template.hasResourceProperties('AWS::Lambda::Function', { Timeout: 30 });
  });

  it('refuses plain-HTTP access to both queues', () => {
    const policies = template.findResources('AWS::SQS::QueuePolicy');
    expect(Object.keys(policies)).toHaveLength(2);
    for (const policy of Object.values(policies)) {
      expect(policy.Properties.PolicyDocument.Statement).toEqual(expect.arrayContaining([
        expect.objectContaining({ Effect: 'Deny', Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      ]));
    }
  });

  it('runs on the pinned Node.js runtime, arm64, without shipping a source map', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: INBOX_RUNTIME.name,
      Architectures: ['arm64'],
      Handler: 'index.handler',
      MemorySize: 256,
      Environment: { Variables: Match.not(Match.objectLike({ NODE_OPTIONS: Match.anyValue() })) },
    });
  });

  it('gives the runtime the Data API target and the Powertools names', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
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

  it('maps the queue with partial batch responses and a batch of 10; no concurrency cap without the cluster capacity, and a warning', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BatchSize: 10,
      MaximumBatchingWindowInSeconds: Match.absent(),
      ScalingConfig: Match.absent(),
    });
    Annotations.fromStack(consumer.queue.stack).hasWarning('/ConsumerTest/Orders', Match.stringLikeRegexp('clusterMaxCapacity'));
  });

  it('grants the Data API on the cluster only, the secret read, and consuming the queue', () => {
    const [policy] = Object.values(template.findResources('AWS::IAM::Policy', {
      Properties: { PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Action: Match.arrayWith(['rds-data:ExecuteStatement']) })]) } },
    }));
    const statements = policy!.Properties.PolicyDocument.Statement as Statement[];
    const withPrefix = (prefix: string) => statements.filter((s) => actionsOf(s).some((a) => a.startsWith(prefix)));
    expect(withPrefix('rds-data:')).toHaveLength(1);
    expect(withPrefix('rds-data:')[0]!.Action).toEqual(expect.arrayContaining([
      'rds-data:ExecuteStatement', 'rds-data:BeginTransaction', 'rds-data:CommitTransaction', 'rds-data:RollbackTransaction',
    ]));
    expect(JSON.stringify(withPrefix('rds-data:')[0]!.Resource)).toContain(':cluster:');
    expect(withPrefix('secretsmanager:')[0]!.Action).toEqual(expect.arrayContaining(['secretsmanager:GetSecretValue']));
    expect(withPrefix('sqs:')[0]!.Action).toEqual(expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility']));
    expect(statements.flatMap(resourcesOf).length).toBeGreaterThanOrEqual(statements.length);
    expect(onWildcard(statements)).toEqual([]);
  });

  it('uses no AWS managed policy: the role may write its own log group and nothing more', () => {
    const roles = Object.values(template.findResources('AWS::IAM::Role'));
    expect(roles.length).toBeGreaterThan(0);
    for (const role of roles) expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Action: ['logs:CreateLogStream', 'logs:PutLogEvents'] })]) },
    });
    template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
  });

  it('alarms when a message reaches the DLQ', () => {
    const [alarm] = alarmsNamed(template, /messages reached the dead-letter queue/);
    expect(alarm!.Properties).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible', Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold', TreatMissingData: 'notBreaching',
    });
  });

  it('alarms before a dead-lettered message expires: at 70 % of the 10 days a standard DLQ is sure to keep it (14 less the queue\'s 4)', () => {
    const [alarm, ...others] = alarmsNamed(template, /in the dead-letter queue, 70 % of the 10 days/);
    expect(others).toEqual([]);
    expect(alarm!.Properties).toMatchObject({
      MetricName: 'ApproximateAgeOfOldestMessage', Statistic: 'Maximum', Threshold: 7 * DAY,
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [stack.getLogicalId(consumer.deadLetterQueue!.node.defaultChild as sqs.CfnQueue), 'QueueName'] } }],
      ComparisonOperator: 'GreaterThanOrEqualToThreshold', TreatMissingData: 'notBreaching',
    });
  });

  it('alarms on a message keyed by a fallback a redrive replaces, read from the runtime\'s keyFallback metric', () => {
    const [alarm] = alarmsNamed(template, /redriven copy would be applied again/);
    expect(alarm!.Properties).toMatchObject({
      MetricName: 'keyFallback', Namespace: 'SqsInbox', Statistic: 'Sum', Threshold: 1, Dimensions: [{ Name: 'service', Value: 'Orders' }],
      ComparisonOperator: 'GreaterThanOrEqualToThreshold', TreatMissingData: 'notBreaching',
    });
  });

  it('makes no keyFallback alarm with requireIdempotencyKey, which rejects such a message (the rejected alarm sees it) so none is ever counted', () => {
    const required = consumerTemplate({ requireIdempotencyKey: true });
    expect(alarmsNamed(required.template, /redriven copy would be applied again/)).toEqual([]);
    expect(required.consumer.alarms.keyFallback).toBeUndefined();
  });

  it('alarms when the oldest message has waited 15 minutes', () => {
    const [alarm] = alarmsNamed(template, /oldest message/);
    expect(alarm!.Properties).toMatchObject({ MetricName: 'ApproximateAgeOfOldestMessage', Threshold: 900, Statistic: 'Maximum' });
  });

  it('alarms on function errors', () => {
    const [alarm] = alarmsNamed(template, /invocations failed/);
    expect(alarm!.Properties).toMatchObject({ MetricName: 'Errors', Namespace: 'AWS/Lambda', Threshold: 1 });
  });

  it('alarms on any collision, read from the runtime metric in its namespace and service', () => {
    const [alarm] = alarmsNamed(template, /different body/);
    expect(alarm!.Properties).toMatchObject({
      MetricName: 'collision', Namespace: 'SqsInbox', Statistic: 'Sum', Threshold: 1,
      Dimensions: [{ Name: 'service', Value: 'Orders' }], TreatMissingData: 'notBreaching',
    });
  });

  it('alarms when duplicates exceed 10 % of processed plus duplicate', () => {
    const [alarm] = alarmsNamed(template, /duplicates are over/);
    const metrics = alarm!.Properties.Metrics as { Id: string; Expression?: string; MetricStat?: { Metric: { MetricName: string } } }[];
    expect(alarm!.Properties).toMatchObject({ Threshold: 0.1, ComparisonOperator: 'GreaterThanThreshold', TreatMissingData: 'notBreaching' });
    expect(metrics.find((m) => m.Expression)?.Expression).toBe('FILL(duplicate, 0) / (FILL(processed, 0) + FILL(duplicate, 0))');
    expect(metrics.filter((m) => m.MetricStat).map((m) => m.MetricStat!.Metric.MetricName).sort()).toEqual(['duplicate', 'processed']);
  });

  it('alarms on any rejected message: poison is acknowledged, so no DLQ alarm ever sees it', () => {
    const [alarm] = alarmsNamed(template, /rejected/);
    expect(alarm!.Properties).toMatchObject({
      MetricName: 'rejected', Namespace: 'SqsInbox', Statistic: 'Sum', Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold', Dimensions: [{ Name: 'service', Value: 'Orders' }], TreatMissingData: 'notBreaching',
    });
  });

  it('alarms when failed messages exceed 5 % of processed plus duplicate plus failed', () => {
    const [alarm] = alarmsNamed(template, /failed messages are over/);
    const metrics = alarm!.Properties.Metrics as { Id: string; Expression?: string; MetricStat?: { Metric: { MetricName: string } } }[];
    expect(alarm!.Properties).toMatchObject({
      Threshold: 0.05, ComparisonOperator: 'GreaterThanThreshold', EvaluationPeriods: 3, DatapointsToAlarm: 2, TreatMissingData: 'notBreaching',
    });
    expect(metrics.find((m) => m.Expression)?.Expression).toBe('FILL(failed, 0) / (FILL(processed, 0) + FILL(duplicate, 0) + FILL(failed, 0))');
    expect(metrics.filter((m) => m.MetricStat).map((m) => m.MetricStat!.Metric.MetricName).sort()).toEqual(['duplicate', 'failed', 'processed']);
  });

  it('alarms on throttles of the function', () => {
    const [alarm] = alarmsNamed(template, /throttled/);
    expect(alarm!.Properties).toMatchObject({ MetricName: 'Throttles', Namespace: 'AWS/Lambda', Statistic: 'Sum', Threshold: 1 });
  });

  it('exposes what it made: the mapping and every alarm of the template, the inbox retention of 25 days', () => {
    const idOf = (construct: { node: { defaultChild?: unknown } }) => stack.getLogicalId(construct.node.defaultChild as sqs.CfnQueue);
    expect(consumer.queue).toBeInstanceOf(sqs.Queue);
    expect(consumer.deadLetterQueue).toBeInstanceOf(sqs.Queue);
    expect(stack.resolve(consumer.eventSourceMapping.eventSourceMappingId)).toEqual({ Ref: Object.keys(template.findResources('AWS::Lambda::EventSourceMapping'))[0] });
    const exposed = Object.values(consumer.alarms as unknown as Record<string, cloudwatch.Alarm>).map(idOf).sort();
    expect(exposed).toEqual(Object.keys(template.findResources('AWS::CloudWatch::Alarm')).sort());
    expect(exposed).toHaveLength(10);
    expect(consumer.inboxRetention.toDays()).toBe(25);
  });
});

describe('InboxConsumer on a FIFO queue', () => {
  it('makes a FIFO queue with a FIFO DLQ', () => {
    const { template, consumer } = consumerTemplate({ queueProps: { fifo: true } });
    const made = queues(template);
    expect(made).toHaveLength(2);
    expect(made.every((queue) => queue.Properties.FifoQueue === true)).toBe(true);
    expect(consumer.fifo).toBe(true);
  });

  it('takes a .fifo queue name as FIFO', () => {
    const { template } = consumerTemplate({ queueProps: { queueName: 'orders.fifo' } });
    expect(queues(template).map((queue) => queue.Properties.FifoQueue)).toEqual([true, true]);
  });

  it('alarms on a dead-lettered message at 70 % of the FIFO DLQ\'s 14 days: a move into it restarts the retention', () => {
    const { template } = consumerTemplate({ queueProps: { fifo: true } });
    const [alarm] = alarmsNamed(template, /in the dead-letter queue, 70 % of the 14 days/);
    expect(alarm!.Properties).toMatchObject({ MetricName: 'ApproximateAgeOfOldestMessage', Threshold: 846_720 }); // 9.8 days
  });
});

describe('InboxConsumer settings given', () => {
  it('passes batch size, batching window and max concurrency to the event source, and widens the visibility timeout', () => {
    const { template } = consumerTemplate({
      batchSize: 100, maxBatchingWindow: Duration.seconds(20), maxConcurrency: 5, timeout: Duration.seconds(60),
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 100, MaximumBatchingWindowInSeconds: 20, ScalingConfig: { MaximumConcurrency: 5 },
    });
    template.hasResourceProperties('AWS::SQS::Queue', { VisibilityTimeout: 6 * 60 + 20, RedrivePolicy: Match.anyValue() });
  });

  it('keeps a larger visibility timeout, a retention and a maxReceiveCount given', () => {
    const { template } = consumerTemplate({
      queueProps: { visibilityTimeout: Duration.minutes(10), retentionPeriod: Duration.days(2) }, maxReceiveCount: 8,
    });
    template.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: 600, MessageRetentionPeriod: 2 * 24 * 3600, RedrivePolicy: Match.objectLike({ maxReceiveCount: 8 }),
    });
  });

  it('names its service, namespace and thresholds as told, and notifies the alarm actions', () => {
    const { stack, cluster } = clusterStack();
    const topic = new sns.Topic(stack, 'Alerts');
    new InboxConsumer(stack, 'Orders', {
      ...baseProps(cluster), serviceName: 'orders', metricsNamespace: 'Shop', oldestMessageAgeThreshold: Duration.minutes(2),
      duplicateRateThreshold: 0.25, failedRateThreshold: 0.2, alarmActions: [new actions.SnsAction(topic)],
    });
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'collision', Namespace: 'Shop', Dimensions: [{ Name: 'service', Value: 'orders' }] });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'ApproximateAgeOfOldestMessage', Threshold: 120 });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { Threshold: 0.25, Metrics: Match.anyValue() });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { Threshold: 0.2, Metrics: Match.anyValue() });
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms).toHaveLength(10);
    for (const alarm of alarms) expect(alarm.Properties.AlarmActions).toHaveLength(1);
  });

  it('sends every alarm to the alarm topic given, beside the alarm actions', () => {
    const { stack, cluster } = clusterStack();
    const alarmTopic = new sns.Topic(stack, 'AlarmTopic');
    const other = new sns.Topic(stack, 'Other');
    new InboxConsumer(stack, 'Orders', { ...baseProps(cluster), alarmTopic, alarmActions: [new actions.SnsAction(other)] });
    const template = Template.fromStack(stack);
    const topicId = (topic: sns.Topic) => stack.getLogicalId(topic.node.defaultChild as sns.CfnTopic);
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms).toHaveLength(10);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual(expect.arrayContaining([{ Ref: topicId(alarmTopic) }, { Ref: topicId(other) }]));
    }
  });

  it('consumes an existing queue without making one, and alarms on a DLQ given', () => {
    const { stack, cluster } = clusterStack();
    const dlq = new sqs.Queue(stack, 'ExistingDlq', { retentionPeriod: Duration.days(14) });
    const queue = new sqs.Queue(stack, 'Existing', { visibilityTimeout: Duration.minutes(3), deadLetterQueue: { queue: dlq, maxReceiveCount: 5 } });
    const consumer = new InboxConsumer(stack, 'Orders', { ...baseProps(cluster), queue, deadLetterQueue: dlq });
    expect(consumer.queue).toBe(queue);
    expect(consumer.deadLetterQueue).toBe(dlq);
    const template = Template.fromStack(stack);
    expect(queues(template)).toHaveLength(2);
    expect(alarmsNamed(template, /messages reached the dead-letter queue/)).toHaveLength(1);
  });

  it('makes no DLQ alarm for an existing queue without a DLQ given', () => {
    const { stack, cluster } = clusterStack();
    const queue = sqs.Queue.fromQueueArn(stack, 'Imported', 'arn:aws:sqs:eu-west-1:123456789012:orders');
    const consumer = new InboxConsumer(stack, 'Orders', { ...baseProps(cluster), queue });
    expect(consumer.alarms.deadLetterQueueNotEmpty).toBeUndefined();
    expect(consumer.alarms.deadLetterQueueAge).toBeUndefined();
    expect(Object.values(Template.fromStack(stack).findResources('AWS::CloudWatch::Alarm'))).toHaveLength(8);
  });

  it('reads a separately given secret, for an imported cluster', () => {
    const { stack } = clusterStack();
    const cluster = rds.DatabaseCluster.fromDatabaseClusterAttributes(stack, 'Imported', { clusterIdentifier: 'shop', dataApiEnabled: true });
    const secret = secretsmanager.Secret.fromSecretCompleteArn(stack, 'Secret', 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:shop-AbCdEf');
    new InboxConsumer(stack, 'Orders', { ...baseProps(cluster), secret });
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:shop-AbCdEf' }) },
    });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({
        Action: Match.arrayWith(['secretsmanager:GetSecretValue']), Resource: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:shop-AbCdEf',
      })]) },
    });
  });
});

describe('the concurrency cap, from the cluster capacity', () => {
  const scaling = (overrides: Parameters<typeof consumerTemplate>[0]) => {
    const [mapping] = Object.values(consumerTemplate(overrides).template.findResources('AWS::Lambda::EventSourceMapping'));
    return mapping!.Properties.ScalingConfig as { MaximumConcurrency: number } | undefined;
  };

  it('is 2 invocations per ACU of the cluster maximum capacity', () => {
    expect(scaling({ clusterMaxCapacity: 8 })).toEqual({ MaximumConcurrency: 16 });
    expect(scaling({ clusterMaxCapacity: 2.5 })).toEqual({ MaximumConcurrency: 5 });
    expect(scaling({ clusterMaxCapacity: 256 })).toEqual({ MaximumConcurrency: 512 });
  });

  it('is at least 2, the least SQS takes', () => {
    expect(scaling({ clusterMaxCapacity: 0.5 })).toEqual({ MaximumConcurrency: 2 });
  });

  it('gives way to a maxConcurrency given', () => {
    expect(scaling({ clusterMaxCapacity: 8, maxConcurrency: 3 })).toEqual({ MaximumConcurrency: 3 });
  });

  it('warns about nothing when the capacity and a secret of its own are given', () => {
    const { stack, cluster } = clusterStack();
    new InboxConsumer(stack, 'Orders', { ...baseProps(cluster), clusterMaxCapacity: 8, secret: new rds.DatabaseSecret(stack, 'OwnSecret', { username: 'inbox_worker' }) });
    Annotations.fromStack(stack).hasNoWarning('*', Match.anyValue());
  });
});

describe('requireIdempotencyKey: messages a redrive would apply again are refused', () => {
  const variables = (template: Template) => {
    const fn = Object.values(template.findResources('AWS::Lambda::Function', { Properties: { Description: Match.stringLikeRegexp('^Inbox consumer') } }))[0] as { Properties: { Environment: { Variables: Record<string, unknown> } } };
    return fn.Properties.Environment.Variables;
  };

  it('is off by default: the runtime applies such messages and warns', () => {
    expect(variables(consumerTemplate().template)).not.toHaveProperty('INBOX_REQUIRE_KEY_ATTRIBUTE');
  });

  it('sets the runtime default of requireKeyAttribute when asked', () => {
    expect(variables(consumerTemplate({ requireIdempotencyKey: true }).template)).toMatchObject({ INBOX_REQUIRE_KEY_ATTRIBUTE: 'true' });
  });
});
