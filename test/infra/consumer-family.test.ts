import { Annotations, Duration } from 'aws-cdk-lib';
import type { Stack } from 'aws-cdk-lib';
import { Annotations as Synthesized, Match, Template } from 'aws-cdk-lib/assertions';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as rds from 'aws-cdk-lib/aws-rds';
import { beforeAll, describe, expect, it } from 'vitest';
import { clusterLoadProblem } from '../../lib/consumer/cluster-concurrency.js';
import type { InboxConsumerCommonProps } from '../../lib/consumer/common-props.js';
import type { InboxConsumerBase } from '../../lib/consumer/inbox-consumer-base.js';
import { INBOX_WARNINGS } from '../../lib/shared/warnings.js';
import { InboxDashboard } from '../../lib/inbox-dashboard.js';
import { InfraConfigError } from '../../lib/infra-config-error.js';
import { InboxKafkaConsumer } from '../../lib/kafka/inbox-kafka-consumer.js';
import { InboxConsumer } from '../../lib/sqs/inbox-consumer.js';
import { baseProps, clusterStack } from './consumer-fixture.js';
import { kafkaProps } from './kafka-consumer-fixture.js';

type Make = (stack: Stack, cluster: rds.IDatabaseCluster, overrides?: Partial<InboxConsumerCommonProps>, id?: string) => InboxConsumerBase;

/** Each source's construct, built from its base props with `overrides` of the shared ones. */
const SOURCES: Record<string, Make> = {
  InboxConsumer: (stack, cluster, overrides = {}, id = 'Orders') => new InboxConsumer(stack, id, { ...baseProps(cluster), ...overrides }),
  InboxKafkaConsumer: (stack, cluster, overrides = {}, id = 'Orders') => new InboxKafkaConsumer(stack, id, {
    ...kafkaProps(cluster), onFailureReachable: true, ...overrides,
  }),
};

/** The warning ids a construct carries, as `Annotations` reports them. */
const warningIds = (stack: Stack, path: string): string[] => Synthesized.fromStack(stack).findWarning(path, Match.anyValue())
  .map((warning) => /\[ack: ([^\]]+)\]/.exec(String(warning.entry.data))?.[1] ?? String(warning.entry.data));

describe.each(Object.entries(SOURCES))('the shared rules hold for %s', (kind, make) => {
  const build = (overrides: Partial<InboxConsumerCommonProps> | ((scope: ReturnType<typeof clusterStack>) => Partial<InboxConsumerCommonProps>)) => {
    const scope = clusterStack();
    return () => make(scope.stack, scope.cluster, typeof overrides === 'function' ? overrides(scope) : overrides);
  };

  it('a function timeout under 10 s (the deadline margin plus one lock wait) is refused; 10 s is accepted', () => {
    expect(build({ timeout: Duration.seconds(9) })).toThrow(/The function timeout must be at least 10 s: .*But 9 s was provided/);
    expect(build({ timeout: Duration.seconds(10) })).not.toThrow();
  });

  it('a cluster capacity that is not ACUs is refused', () => {
    expect(build({ clusterMaxCapacity: 300 })).toThrow(/clusterMaxCapacity must be ACUs from 0.5 to 256 in steps of 0.5 .*, but 300 was provided/);
    expect(build({ clusterMaxCapacity: 0.7 })).toThrow(/but 0.7 was provided/);
  });

  it('alarm shares outside 0 to 1 are refused, quoting the value', () => {
    expect(build({ duplicateRateThreshold: 10 })).toThrow(/duplicateRateThreshold is a share between 0 and 1.*but 10 was provided/);
    expect(build({ failedRateThreshold: 1.5 })).toThrow(/failedRateThreshold is a share between 0 and 1.*but 1.5 was provided/);
    expect(build({ deadLetterAgeThreshold: 1 })).toThrow(/deadLetterAgeThreshold is a share of the dead-letter queue's retention between 0 and 1.*but 1 was provided/);
  });

  it('an imported cluster without a secret is refused, asking for the secret', () => {
    expect(build(({ stack }) => ({
      cluster: rds.DatabaseCluster.fromDatabaseClusterAttributes(stack, 'Imported', { clusterIdentifier: 'shop', dataApiEnabled: true }),
    }))).toThrow(/The cluster has no secret the construct can see.*pass the secret/);
  });

  it('refusals come as InfraConfigError, naming the construct and the consumer, before anything is built', () => {
    const scope = clusterStack();
    const before = scope.stack.node.findAll().length;
    expect(() => make(scope.stack, scope.cluster, { timeout: Duration.seconds(5), failedRateThreshold: 2 })).toThrow(InfraConfigError);
    expect(() => make(scope.stack, scope.cluster, { timeout: Duration.seconds(5), failedRateThreshold: 2 }, 'Other'))
      .toThrow(new RegExp(`^${kind} Other: The function timeout[^\\n]*\\nfailedRateThreshold`));
    // Each attempt added only its own, empty scope node.
    expect(scope.stack.node.findAll().length).toBe(before + 2);
  });

  describe('warnings, each by its id', () => {
    let ownerSecret: Stack;
    let uncapped: Stack;
    beforeAll(() => {
      const owner = clusterStack();
      make(owner.stack, owner.cluster, { clusterMaxCapacity: 2 });
      const withoutCap = clusterStack();
      make(withoutCap.stack, withoutCap.cluster, { secret: new rds.DatabaseSecret(withoutCap.stack, 'Own', { username: 'inbox_worker' }) });
      ({ stack: ownerSecret } = owner);
      ({ stack: uncapped } = withoutCap);
      // The first synth in a process loads most of aws-cdk-lib: done here, under the hook's time limit.
      Synthesized.fromStack(ownerSecret);
    });

    it('signing in with the cluster\'s own secret is warned about', () => {
      expect(warningIds(ownerSecret, '/ConsumerTest/Orders')).toEqual([INBOX_WARNINGS.clusterOwnerSecret]);
    });

    it('no cluster capacity is warned about', () => {
      expect(warningIds(uncapped, '/ConsumerTest/Orders')).toEqual([INBOX_WARNINGS.clusterCapacityUnknown]);
    });

    it('a warning weighed is acknowledged by its id, and goes', () => {
      const scope = clusterStack();
      const consumer = make(scope.stack, scope.cluster, { clusterMaxCapacity: 2 });
      Annotations.of(consumer).acknowledgeWarning(INBOX_WARNINGS.clusterOwnerSecret, 'a development stack: the owner signs in');
      expect(warningIds(scope.stack, '/ConsumerTest/Orders')).toEqual([]);
    });
  });

  it('names its function for the console after the service, and gives it the Data API target and the Powertools names', () => {
    const scope = clusterStack();
    make(scope.stack, scope.cluster, { serviceName: 'orders', metricsNamespace: 'Shop', environment: { CLUSTER_ARN: 'overridden?', FEATURE: 'on' } });
    Template.fromStack(scope.stack).hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('^Inbox consumer orders: '),
      Environment: { Variables: Match.objectLike({
        FEATURE: 'on', CLUSTER_ARN: Match.not('overridden?'), DATABASE_NAME: 'inbox', POWERTOOLS_SERVICE_NAME: 'orders', POWERTOOLS_METRICS_NAMESPACE: 'Shop',
      }) },
    });
  });
});

describe('the consumers of one cluster, summed', () => {
  const ownSecret = (stack: Stack, id: string) => new rds.DatabaseSecret(stack, `${id}Secret`, { username: 'inbox_worker' });

  it('are warned about, on the consumer that passes 2 invocations per ACU, naming each consumer\'s share', () => {
    const { stack, cluster } = clusterStack();
    SOURCES.InboxConsumer!(stack, cluster, { clusterMaxCapacity: 8, secret: ownSecret(stack, 'Orders') });
    SOURCES.InboxConsumer!(stack, cluster, { clusterMaxCapacity: 8, secret: ownSecret(stack, 'Payments') }, 'Payments');
    expect(warningIds(stack, '/ConsumerTest/Orders')).toEqual([]);
    expect(warningIds(stack, '/ConsumerTest/Payments')).toEqual([INBOX_WARNINGS.clusterConcurrencyExceeded]);
    Synthesized.fromStack(stack).hasWarning('/ConsumerTest/Payments', Match.stringLikeRegexp(
      'may run 32 invocations at once \\(ConsumerTest/Orders 16, ConsumerTest/Payments 16\\), more than its 8 ACU take at 2 per ACU \\(16\\)'));
  });

  it('count a Kafka consumer\'s pollers at 5 invocations each, beside an SQS consumer', () => {
    const { stack, cluster } = clusterStack();
    SOURCES.InboxConsumer!(stack, cluster, { clusterMaxCapacity: 4, secret: ownSecret(stack, 'Orders') });
    SOURCES.InboxKafkaConsumer!(stack, cluster, { clusterMaxCapacity: 4, secret: ownSecret(stack, 'Shipping') }, 'Shipping');
    Synthesized.fromStack(stack).hasWarning('/ConsumerTest/Shipping', Match.stringLikeRegexp('may run 13 invocations at once \\(ConsumerTest/Orders 8, ConsumerTest/Shipping 5\\)'));
  });

  it('pass when their caps add up to the capacity, the one that knows it counting for those that do not', () => {
    const { stack, cluster } = clusterStack();
    const orders = new InboxConsumer(stack, 'Orders', { ...baseProps(cluster), clusterMaxCapacity: 8, maxConcurrency: 8, secret: ownSecret(stack, 'Orders') });
    const payments = new InboxConsumer(stack, 'Payments', { ...baseProps(cluster), maxConcurrency: 8, secret: ownSecret(stack, 'Payments') });
    expect([orders, payments].map((consumer) => warningIds(stack, `/${consumer.node.path}`))).toEqual([[], []]);
    const refunds = new InboxConsumer(stack, 'Refunds', { ...baseProps(cluster), maxConcurrency: 2, secret: ownSecret(stack, 'Refunds') });
    expect(warningIds(stack, `/${refunds.node.path}`)).toEqual([INBOX_WARNINGS.clusterConcurrencyExceeded]);
  });

  it('are counted per cluster: consumers of two clusters do not add up', () => {
    const { stack, cluster } = clusterStack();
    const other = rds.DatabaseCluster.fromDatabaseClusterAttributes(stack, 'Other', { clusterIdentifier: 'other', dataApiEnabled: true });
    SOURCES.InboxConsumer!(stack, cluster, { clusterMaxCapacity: 8, secret: ownSecret(stack, 'Orders') });
    SOURCES.InboxConsumer!(stack, other, { clusterMaxCapacity: 8, secret: ownSecret(stack, 'Payments') }, 'Payments');
    expect(warningIds(stack, '/ConsumerTest/Payments')).toEqual([]);
  });

  it('know an imported cluster by its identifier, however often it is imported', () => {
    const { stack } = clusterStack();
    const imported = (id: string) => rds.DatabaseCluster.fromDatabaseClusterAttributes(stack, id, { clusterIdentifier: 'shop', dataApiEnabled: true });
    SOURCES.InboxConsumer!(stack, imported('ShopA'), { clusterMaxCapacity: 2, secret: ownSecret(stack, 'Orders') });
    SOURCES.InboxConsumer!(stack, imported('ShopB'), { clusterMaxCapacity: 2, secret: ownSecret(stack, 'Payments') }, 'Payments');
    expect(warningIds(stack, '/ConsumerTest/Payments')).toEqual([INBOX_WARNINGS.clusterConcurrencyExceeded]);
  });

  it('leave a single consumer alone: its own cap is already sized to the cluster', () => {
    expect(clusterLoadProblem([{ consumer: 'A', invocations: 5 }], 0.5)).toBeUndefined();
    expect(clusterLoadProblem([{ consumer: 'A', invocations: 2 }, { consumer: 'B', invocations: 2 }], 2)).toBeUndefined();
    expect(clusterLoadProblem([{ consumer: 'A', invocations: 2 }, { consumer: 'B', invocations: 3 }], 2)).toMatch(/may run 5 invocations at once \(A 2, B 3\)/);
  });
});

describe('the dashboard', () => {
  it('takes any consumer: an SQS row graphs its queues, a Kafka row its lag and on-failure queue, and every alarm is on it', () => {
    const { stack, cluster } = clusterStack();
    const orders = SOURCES.InboxConsumer!(stack, cluster, { clusterMaxCapacity: 8 });
    const shipping = SOURCES.InboxKafkaConsumer!(stack, cluster, { clusterMaxCapacity: 8, serviceName: 'shipping' }, 'Shipping');
    new InboxDashboard(stack, 'Dashboard', { consumers: [orders, shipping] });
    const [dashboard] = Object.values(Template.fromStack(stack).findResources('AWS::CloudWatch::Dashboard'));
    const body = JSON.stringify(dashboard!.Properties.DashboardBody);
    for (const title of ['Orders: messages waiting', 'Orders: age of oldest message (s)', 'shipping: offset lag (records)', 'shipping: failure notices waiting']) {
      expect(body).toContain(title);
    }
    expect(body).toContain('OffsetLag');
    const alarms = [orders, shipping].flatMap((consumer) => (Object.values(consumer.alarms) as (cloudwatch.Alarm | undefined)[]).filter((alarm) => alarm !== undefined));
    expect(alarms).toHaveLength(10 + 9);
    for (const alarm of alarms) expect(body).toContain(`"${stack.getLogicalId(alarm.node.defaultChild as cloudwatch.CfnAlarm)}"`);
  });
});
