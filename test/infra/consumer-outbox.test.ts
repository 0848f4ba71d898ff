import { Duration } from 'aws-cdk-lib';
import type { Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as events from 'aws-cdk-lib/aws-events';
import * as rds from 'aws-cdk-lib/aws-rds';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { INBOX_ENV, OUTBOX_METRICS } from '../../functions/inbox/contract.js';
import { outboxTargetsFromEnv } from '../../functions/inbox/outbox/index.js';
import type { InboxConsumerBase } from '../../lib/consumer/inbox-consumer-base.js';
import { INBOX_WARNINGS } from '../../lib/shared/warnings.js';
import { InboxDashboard } from '../../lib/inbox-dashboard.js';
import { InboxKafkaConsumer } from '../../lib/kafka/inbox-kafka-consumer.js';
import { INBOX_RUNTIME } from '../../lib/inbox-runtime.js';
import { clusterStack } from './consumer-fixture.js';
import { actionsOf, onWildcard, resourcesOf } from './iam-statements.js';
import type { Statement } from './iam-statements.js';
import { OUTBOX_SOURCES, outboxConsumer, statementsOfFunction, targetSet } from './outbox-fixture.js';
import type { OutboxBuild } from './outbox-fixture.js';
import { renderedText } from './template-text.js';

const SEND_ACTIONS = ['sqs:SendMessage', 'sns:Publish', 'events:PutEvents'];
const KMS_ACTIONS = ['kms:GenerateDataKey', 'kms:Decrypt'];

/** The statements that mention an action of `prefixes`, by their actions and resources. */
const grantsOf = (statements: Statement[], prefixes: readonly string[]) => statements
  .filter((s) => actionsOf(s).some((action) => prefixes.some((prefix) => action.startsWith(prefix))))
  .map((s) => ({ actions: actionsOf(s).sort(), resources: resourcesOf(s) }));

/** A Kafka consumer's function role sends the failure notices to its on-failure queue: the event source's right, not an outbox's. */
const eventSourceQueues = (stack: Stack, consumer: InboxConsumerBase): unknown[] =>
  (consumer instanceof InboxKafkaConsumer ? [stack.resolve(consumer.onFailureQueue!.queueArn)] : []);
const outboxGrantsOf = (stack: Stack, consumer: InboxConsumerBase, statements: Statement[], prefixes: readonly string[]) => grantsOf(statements, prefixes)
  .filter((grant) => JSON.stringify(grant.resources) !== JSON.stringify(eventSourceQueues(stack, consumer)));

const environmentOf = (template: Template, stack: Stack, fn: { node: { defaultChild?: unknown } }) =>
  template.toJSON().Resources[stack.getLogicalId(fn.node.defaultChild as never)].Properties.Environment.Variables as Record<string, unknown>;
const idOf = (stack: Stack, construct: { node: { defaultChild?: unknown } }) => stack.getLogicalId(construct.node.defaultChild as never);

describe.each(Object.keys(OUTBOX_SOURCES))('%s: the worker and the relay may send to the outbox\'s targets and nothing more', (kind) => {
  let build: OutboxBuild;
  beforeAll(() => {
    build = outboxConsumer(kind);
  });

  it('sqs:SendMessage, sns:Publish and events:PutEvents on exactly the targets\' ARNs, for both functions', () => {
    const { stack, template, consumer } = build;
    const arn = (token: string) => stack.resolve(token);
    for (const fn of [consumer.lambdaFunction, consumer.outbox!.relayFunction]) {
      expect(outboxGrantsOf(stack, consumer, statementsOfFunction(stack, template, fn), SEND_ACTIONS)).toEqual([
        { actions: ['sqs:SendMessage'], resources: [arn(build.notices.queueArn), arn(build.sealed.queueArn)] },
        { actions: ['sns:Publish'], resources: [arn(build.topic.topicArn)] },
        { actions: ['events:PutEvents'], resources: [arn(build.bus.eventBusArn)] },
      ]);
    }
  });

  it('no other right on a target (no GetQueueAttributes, no GetQueueUrl), and no send or key right on *', () => {
    const { stack, template, consumer } = build;
    const targetArns = [build.notices.queueArn, build.sealed.queueArn, build.topic.topicArn, build.bus.eventBusArn].map((token) => JSON.stringify(stack.resolve(token)));
    for (const fn of [consumer.lambdaFunction, consumer.outbox!.relayFunction]) {
      const statements = statementsOfFunction(stack, template, fn);
      const onTargets = statements.filter((s) => resourcesOf(s).some((resource) => targetArns.includes(JSON.stringify(resource))));
      expect(onTargets.flatMap(actionsOf).sort()).toEqual(['events:PutEvents', 'sns:Publish', 'sqs:SendMessage']);
      expect(grantsOf(onWildcard(statements), [...SEND_ACTIONS, 'kms:'])).toEqual([]);
    }
  });

  it('GenerateDataKey and Decrypt on the keys of the encrypted queue and topic only: not the bus\'s key, which EventBridge uses itself', () => {
    const { stack, template, consumer } = build;
    for (const fn of [consumer.lambdaFunction, consumer.outbox!.relayFunction]) {
      expect(grantsOf(statementsOfFunction(stack, template, fn), ['kms:'])).toEqual([
        { actions: [...KMS_ACTIONS].sort(), resources: [stack.resolve(build.queueKey.keyArn), stack.resolve(build.topicKey.keyArn)] },
      ]);
    }
  });
});

describe('a consumer without an outbox', () => {
  it.each(Object.keys(OUTBOX_SOURCES))('%s has no send right, no outbox variable and no relay', (kind) => {
    const { stack, cluster } = clusterStack();
    const consumer = OUTBOX_SOURCES[kind]!(stack, cluster, {});
    const template = Template.fromStack(stack);
    expect(consumer.outbox).toBeUndefined();
    expect(grantsOf(statementsOfFunction(stack, template, consumer.lambdaFunction), [...SEND_ACTIONS, 'kms:']).flatMap((grant) => grant.resources))
      .toEqual(eventSourceQueues(stack, consumer));
    expect(environmentOf(template, stack, consumer.lambdaFunction)[INBOX_ENV.outboxTargets]).toBeUndefined();
    template.resourceCountIs('AWS::Events::Rule', 0);
  });
});

describe.each(Object.keys(OUTBOX_SOURCES))('%s: the targets reach both functions in INBOX_OUTBOX_TARGETS, as the runtime reads it', (kind) => {
  it('each name with its kind and its queue URL, topic ARN or bus ARN, and a queue\'s MaximumMessageSize', () => {
    const { stack, template, consumer } = outboxConsumer(kind);
    const queue = (q: sqs.Queue) => `<Ref ${idOf(stack, q)}>`;
    for (const fn of [consumer.lambdaFunction, consumer.outbox!.relayFunction]) {
      expect(JSON.parse(renderedText(environmentOf(template, stack, fn)[INBOX_ENV.outboxTargets]))).toEqual({
        'shipment-notices': { type: 'sqs', queueUrl: `<Ref ${idOf(stack, stack.node.findChild('Notices') as sqs.Queue)}>`, maxMessageBytes: 65_536 },
        sealed: { type: 'sqs', queueUrl: queue(stack.node.findChild('Sealed') as sqs.Queue) },
        'orders.events': { type: 'sns', topicArn: `<Ref ${idOf(stack, stack.node.findChild('Topic') as sns.Topic)}>` },
        bus: { type: 'eventbridge', eventBusName: `<${idOf(stack, stack.node.findChild('Bus') as events.EventBus)}.Arn>` },
      });
    }
  });

  it('targets of other stacks or accounts, imported, come out as text outboxTargetsFromEnv turns into publishers by the same names', () => {
    const { stack, cluster } = clusterStack();
    const notices = sqs.Queue.fromQueueArn(stack, 'ImportedNotices', 'arn:aws:sqs:eu-west-1:123456789012:shipment-notices.fifo');
    const topic = sns.Topic.fromTopicArn(stack, 'ImportedTopic', 'arn:aws:sns:eu-west-1:123456789012:orders');
    const bus = events.EventBus.fromEventBusArn(stack, 'ImportedBus', 'arn:aws:events:eu-west-1:123456789012:event-bus/orders');
    const consumer = OUTBOX_SOURCES[kind]!(stack, cluster, { outbox: { targets: { notices, topic, bus } } });
    const text = renderedText(environmentOf(Template.fromStack(stack), stack, consumer.lambdaFunction)[INBOX_ENV.outboxTargets])
      .replaceAll('<Ref AWS::Region>', 'eu-west-1');
    const publishers = outboxTargetsFromEnv({ env: { [INBOX_ENV.outboxTargets]: text } });
    expect(Object.keys(publishers)).toEqual(['notices', 'topic', 'bus']);
    expect(publishers.notices!.fifo).toBe(true);
    expect(JSON.parse(text).notices.queueUrl).toBe('https://sqs.eu-west-1.amazonaws.com/123456789012/shipment-notices.fifo');
  });

  it('the construct\'s own variable wins over the same name in environment', () => {
    const { stack, template, consumer } = outboxConsumer(kind, () => ({ environment: { [INBOX_ENV.outboxTargets]: '{"forged":{}}' } }));
    expect(renderedText(environmentOf(template, stack, consumer.lambdaFunction)[INBOX_ENV.outboxTargets])).not.toContain('forged');
  });
});

describe.each(Object.keys(OUTBOX_SOURCES))('%s: the relay runs on a schedule, retried, with a DLQ of its own', (kind) => {
  it('every minute by default, the relay of the consumer\'s rows under its serviceName and namespace', () => {
    const { stack, template, consumer } = outboxConsumer(kind, () => ({ serviceName: 'ship-order', metricsNamespace: 'Shop' }));
    const relay = consumer.outbox!;
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      Targets: [Match.objectLike({
        Arn: { 'Fn::GetAtt': [idOf(stack, relay.relayFunction), 'Arn'] },
        RetryPolicy: { MaximumRetryAttempts: 2 },
        DeadLetterConfig: { Arn: { 'Fn::GetAtt': [idOf(stack, relay.relayDeadLetterQueue), 'Arn'] } },
      })],
    });
    expect(environmentOf(template, stack, relay.relayFunction)).toEqual(expect.objectContaining({
      [INBOX_ENV.consumer]: 'ship-order', POWERTOOLS_SERVICE_NAME: 'ship-order', POWERTOOLS_METRICS_NAMESPACE: 'Shop', DATABASE_NAME: 'inbox',
    }));
    expect(environmentOf(template, stack, consumer.lambdaFunction)).toEqual(expect.objectContaining({ [INBOX_ENV.consumer]: 'ship-order', POWERTOOLS_SERVICE_NAME: 'ship-order' }));
    expect(environmentOf(template, stack, relay.relayFunction)[INBOX_ENV.outboxGraceSeconds]).toBeUndefined();
  });

  it('every relaySchedule when given, for the consumer\'s name and grace when given', () => {
    const { stack, template, consumer } = outboxConsumer(kind, (set) => ({
      serviceName: 'ship-order',
      outbox: { targets: set.targets, relaySchedule: Duration.minutes(5), relayGrace: Duration.seconds(45) },
    }));
    template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(5 minutes)' });
    expect(environmentOf(template, stack, consumer.outbox!.relayFunction)).toEqual(expect.objectContaining({
      [INBOX_ENV.consumer]: 'ship-order', [INBOX_ENV.outboxGraceSeconds]: '45',
    }));
  });

  it('bundles the kit\'s relay, functions/outbox-relay, with the kit\'s runtime and a 1-minute timeout', () => {
    const { template } = outboxConsumer(kind);
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('^Outbox relay of Orders'), Timeout: 60, Architectures: ['arm64'], Handler: 'index.handler', Runtime: INBOX_RUNTIME.name,
    });
  });
});

describe.each(Object.keys(OUTBOX_SOURCES))('%s: the relay signs in as a database role of its own', (kind) => {
  it('with an InboxDatabase: <consumer role>_relay with the relay\'s access, its secret alone, Data API statements only, after the migrations', () => {
    const { stack, template, consumer } = outboxConsumer(kind, () => ({}), true);
    const relay = consumer.outbox!;
    expect(relay.relayRole!.name).toBe('orders_relay');
    const statements = statementsOfFunction(stack, template, relay.relayFunction);
    expect(grantsOf(statements, ['secretsmanager:']).map((grant) => grant.resources)).toEqual([[stack.resolve(relay.relayRole!.secret.secretArn)]]);
    expect(grantsOf(statements, ['rds-data:']).map((grant) => grant.actions)).toEqual([['rds-data:ExecuteStatement']]);
    expect(environmentOf(template, stack, relay.relayFunction)[INBOX_ENV.secretArn]).toEqual(stack.resolve(relay.relayRole!.secret.secretArn));
    const roles = JSON.stringify(stack.resolve(template.toJSON().Resources[idOf(stack, stack.node.findChild('Inbox').node.findChild('Migrations').node.findChild('Resource'))]?.Properties));
    expect(roles).toContain('\\"orders_relay\\":{\\"secretArn\\"');
    expect(roles).toContain('\\"access\\":\\"relay\\"');
    expect(template.toJSON().Resources[idOf(stack, relay.relayFunction)].DependsOn).toEqual(
      expect.arrayContaining([idOf(stack, stack.node.findChild('Inbox').node.findChild('Migrations').node.findChild('Resource'))]));
  });

  it('outbox.relayDatabaseRole names it', () => {
    const { consumer } = outboxConsumer(kind, (set) => ({ outbox: { targets: set.targets, relayDatabaseRole: 'notices_relay' } }), true);
    expect(consumer.outbox!.relayRole!.name).toBe('notices_relay');
  });

  it('without a database, the relaySecret given, and no other', () => {
    const { stack, template, consumer } = outboxConsumer(kind, (set) => {
      const consumerSecret = new rds.DatabaseSecret(set.notices.stack, 'Worker', { username: 'orders' });
      const relaySecret = new rds.DatabaseSecret(set.notices.stack, 'Relay', { username: 'orders_relay' });
      return { secret: consumerSecret, outbox: { targets: set.targets, relaySecret } };
    });
    const relay = consumer.outbox!;
    expect(relay.relayRole).toBeUndefined();
    const statements = statementsOfFunction(stack, template, relay.relayFunction);
    expect(grantsOf(statements, ['secretsmanager:']).map((grant) => grant.resources)).toEqual([[stack.resolve(relay.relaySecret.secretArn)]]);
    expect(relay.relaySecret.node.id).toBe('Relay');
  });

  it('without a database or any secret, the cluster\'s own, warned of as the consumer is', () => {
    const { stack, consumer } = outboxConsumer(kind);
    const warnings = Annotations.fromStack(stack).findWarning(`/${consumer.outbox!.node.path}`, Match.anyValue());
    expect(warnings.map((warning) => String(warning.entry.data))).toEqual([expect.stringContaining(INBOX_WARNINGS.clusterOwnerSecret)]);
  });
});

describe.each(Object.keys(OUTBOX_SOURCES))('%s: alarms watch the outbox and its relay, into the consumer\'s alarm topic', (kind) => {
  let build: OutboxBuild;
  let topic: sns.Topic;
  beforeAll(() => {
    build = outboxConsumer(kind, (set) => {
      topic = new sns.Topic(set.notices.stack, 'Alarms');
      return { alarmTopic: topic, serviceName: 'ship-order', metricsNamespace: 'Shop' };
    });
  });
  const alarmOf = (alarm: cloudwatch.Alarm) => build.template.toJSON().Resources[idOf(build.stack, alarm)].Properties;

  it('the oldest undispatched row\'s age (ms, the highest over 5 minutes) at 5 relay periods', () => {
    expect(alarmOf(build.consumer.outbox!.alarms.oldestUndispatchedAge)).toEqual(expect.objectContaining({
      MetricName: OUTBOX_METRICS.oldestUndispatchedAge, Namespace: 'Shop', Dimensions: [{ Name: 'service', Value: 'ship-order' }],
      Statistic: 'Maximum', Unit: 'Milliseconds', Period: 300, Threshold: 300_000, ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    }));
  });

  it('failed rows, the consumer\'s and the relay\'s under one metric, on the first one', () => {
    expect(alarmOf(build.consumer.outbox!.alarms.failedRows)).toEqual(expect.objectContaining({
      MetricName: OUTBOX_METRICS.failed, Namespace: 'Shop', Dimensions: [{ Name: 'service', Value: 'ship-order' }], Statistic: 'Sum', Threshold: 1,
    }));
  });

  it('the relay\'s errors, its absence and the schedule\'s failed invocations', () => {
    const { alarms, relayFunction, relaySchedule } = build.consumer.outbox!;
    expect(alarmOf(alarms.relayErrors)).toEqual(expect.objectContaining({
      MetricName: 'Errors', Namespace: 'AWS/Lambda', Dimensions: [{ Name: 'FunctionName', Value: { Ref: idOf(build.stack, relayFunction) } }], Threshold: 1,
    }));
    expect(alarmOf(alarms.relayNotRunning)).toEqual(expect.objectContaining({
      MetricName: 'Invocations', Period: 60, EvaluationPeriods: 3, ComparisonOperator: 'LessThanThreshold', TreatMissingData: 'breaching',
    }));
    expect(JSON.stringify(alarmOf(alarms.relayScheduleFailed).Metrics)).toContain(JSON.stringify({ Name: 'RuleName', Value: { Ref: idOf(build.stack, relaySchedule) } }));
  });

  it('every outbox alarm notifies the alarm topic', () => {
    for (const alarm of Object.values(build.consumer.outbox!.alarms)) {
      expect(alarmOf(alarm).AlarmActions).toEqual([{ Ref: idOf(build.stack, topic) }]);
    }
  });

  it('the age alarm looks at a relay period when the relay runs less often than every 5 minutes, and its threshold is a prop', () => {
    const { template, stack, consumer } = outboxConsumer(kind, (set) => ({
      outbox: { targets: set.targets, relaySchedule: Duration.minutes(30), oldestUndispatchedAgeThreshold: Duration.hours(2) },
    }));
    expect(template.toJSON().Resources[idOf(stack, consumer.outbox!.alarms.oldestUndispatchedAge)].Properties).toEqual(expect.objectContaining({ Period: 1800, Threshold: 7_200_000 }));
  });

  it('the dashboard shows the outbox row and its alarms', () => {
    const { stack, cluster } = clusterStack();
    const consumer = OUTBOX_SOURCES[kind]!(stack, cluster, { serviceName: 'ship-order', outbox: { targets: targetSet(stack).targets } });
    new InboxDashboard(stack, 'Dashboard', { consumers: [consumer] });
    const body = JSON.stringify(Template.fromStack(stack).findResources('AWS::CloudWatch::Dashboard'));
    for (const title of ['ship-order: outbox rows per minute', 'ship-order: oldest undispatched outbox row (ms)', 'ship-order: outbox relay']) expect(body).toContain(title);
    for (const metric of Object.values(OUTBOX_METRICS)) expect(body).toContain(metric);
    for (const alarm of Object.values(consumer.outbox!.alarms)) expect(body).toContain(idOf(stack, alarm));
  });
});
