import { Duration } from 'aws-cdk-lib';
import type { Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as sources from 'aws-cdk-lib/aws-lambda-event-sources';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { InfraConfigError } from '../../lib/infra-config-error.js';
import { MSK_CLUSTER_ARN, buildKafka } from './kafka-consumer-fixture.js';

const DAY = 86_400;

describe('provisioned mode turned off', () => {
  it('is refused, because Lambda reads the partial batch response of a Kafka source only in provisioned mode', () => {
    expect(buildKafka(() => ({ provisionedPollers: false })))
      .toThrow(/Lambda takes one from a Kafka event source only in provisioned mode .*But provisionedPollers false was provided/);
  });

  it('is refused with a KafkaDlq destination too, naming the topic', () => {
    expect(buildKafka(() => ({ provisionedPollers: false, onFailure: new sources.KafkaDlq('orders-failed') })))
      .toThrow(/An on-failure Kafka topic \(KafkaDlq orders-failed\) needs provisioned mode/);
  });

  it('throws InfraConfigError, naming the consumer', () => {
    expect(buildKafka(() => ({ provisionedPollers: false }))).toThrow(InfraConfigError);
    expect(buildKafka(() => ({ provisionedPollers: false }))).toThrow(/^InboxKafkaConsumer Orders: /);
  });
});

describe('provisioned pollers out of Lambda\'s ranges', () => {
  it('are refused, quoting the value', () => {
    expect(buildKafka(() => ({ provisionedPollers: { minimumPollers: 0 } }))).toThrow(/minimumPollers must be a whole number from 1 to 200, but 0 was provided/);
    expect(buildKafka(() => ({ provisionedPollers: { maximumPollers: 2001 } }))).toThrow(/maximumPollers must be a whole number from 1 to 2000, but 2001 was provided/);
    expect(buildKafka(() => ({ provisionedPollers: { minimumPollers: 5, maximumPollers: 2 } }))).toThrow(/minimumPollers \(5\) must not exceed maximumPollers \(2\)/);
  });

  it('include a minimum above the maximum derived from clusterMaxCapacity', () => {
    expect(buildKafka(() => ({ clusterMaxCapacity: 4, provisionedPollers: { minimumPollers: 3 } })))
      .toThrow(/minimumPollers \(3\) must not exceed maximumPollers \(1, derived from clusterMaxCapacity\)/);
  });
});

describe('retries', () => {
  it('infinite (-1) are refused', () => {
    expect(buildKafka(() => ({ retryAttempts: -1 }))).toThrow(/Retries must be bounded, but retryAttempts -1 \(infinite\) was provided/);
  });

  it('out of 4 to 10000 are refused, quoting the value', () => {
    expect(buildKafka(() => ({ retryAttempts: 3 }))).toThrow(/retryAttempts must be a whole number from 4 to 10000 .*but 3 was provided/);
    expect(buildKafka(() => ({ retryAttempts: 10_001 }))).toThrow(/but 10001 was provided/);
    expect(buildKafka(() => ({ retryAttempts: 4.5 }))).toThrow(/but 4.5 was provided/);
  });

  it('at the bounds are accepted', () => {
    expect(buildKafka(() => ({ retryAttempts: 4 }))).not.toThrow();
    expect(buildKafka(() => ({ retryAttempts: 10_000 }))).not.toThrow();
  });
});

describe('a record age out of range', () => {
  it('is refused below 60 s and above 7 days, quoting the value', () => {
    expect(buildKafka(() => ({ maxRecordAge: Duration.seconds(59) }))).toThrow(/maxRecordAge must be whole seconds from 60 s to 604800 s \(7 days\), but 59 s was provided/);
    expect(buildKafka(() => ({ maxRecordAge: Duration.days(8) }))).toThrow(/but 691200 s was provided/);
  });

  it('is accepted at 60 s and at 7 days', () => {
    expect(buildKafka(() => ({ maxRecordAge: Duration.seconds(60) }))).not.toThrow();
    expect(buildKafka(() => ({ maxRecordAge: Duration.days(7) }))).not.toThrow();
  });
});

describe('a batch size out of 1 to 10000', () => {
  it('is refused, quoting the value (the CDK does not check it for Kafka)', () => {
    expect(buildKafka(() => ({ batchSize: 0 }))).toThrow(/batchSize must be a whole number from 1 to 10000, but 0 was provided/);
    expect(buildKafka(() => ({ batchSize: 10_001 }))).toThrow(/but 10001 was provided/);
  });
});

describe('an inbox retention shorter than a record can come back (twice the topic\'s retention: a redrive writes it back there)', () => {
  it('is accepted at exactly twice a 7-day topic, and at the default 25 days', () => {
    expect(buildKafka(() => ({ topicRetention: Duration.days(7), inboxRetention: Duration.days(14) }))).not.toThrow();
    expect(buildKafka(() => ({ topicRetention: Duration.days(7) }))).not.toThrow();
  });

  it('is refused one second short, saying why and quoting both values and the fix', () => {
    expect(buildKafka(() => ({ topicRetention: Duration.days(7), inboxRetention: Duration.seconds(14 * DAY - 1) })))
      .toThrow(new RegExp('a redrive \\(its records written back to the topic.*starts a second life there under a new offset.*'
        + 'But an inboxRetention of 13 days 23 hours 3599 s was provided for a topicRetention of 7 days: raise inboxRetention to 14 days\\.'));
  });

  it('is refused for a longer topic retention with the default inbox retention', () => {
    expect(buildKafka(() => ({ topicRetention: Duration.days(13) }))).toThrow(/raise inboxRetention to 26 days/);
  });

  it('does not count how long an SQS queue keeps a failure notice: the notice points into the topic, which holds the records', () => {
    const onFailure = (days: number) => ({ stack }: { stack: Stack }) =>
      ({ onFailure: new sources.SqsDlq(new sqs.Queue(stack, 'Failures', { retentionPeriod: Duration.days(days) })), inboxRetention: Duration.days(14) });
    expect(buildKafka(onFailure(3))).not.toThrow();
    expect(buildKafka(onFailure(14))).not.toThrow();
  });

  it('asks for the time a Kafka or S3 destination keeps the records on top, which it cannot read (and warns of)', () => {
    expect(buildKafka(() => ({ onFailure: new sources.KafkaDlq('orders-failed'), inboxRetention: Duration.days(14) }))).not.toThrow();
    expect(buildKafka(() => ({ onFailure: new sources.KafkaDlq('orders-failed'), inboxRetention: Duration.days(13) })))
      .toThrow(/raise inboxRetention to 14 days, plus how long the on-failure destination keeps a record/);
  });

  it('refuses a topic retention of 0', () => {
    expect(buildKafka(() => ({ topicRetention: Duration.seconds(0) }))).toThrow(/topicRetention is how long the topic keeps a record .*but 0 s was provided/);
  });
});

describe('on-failure destinations Lambda cannot use', () => {
  it('the consumed topic itself is refused', () => {
    expect(buildKafka(() => ({ onFailure: new sources.KafkaDlq('kafka://orders') })))
      .toThrow(/The on-failure topic must not be the consumed topic, but KafkaDlq orders was provided for topic orders/);
  });

  it('a FIFO queue or topic is refused', () => {
    expect(buildKafka(({ stack }) => ({ onFailure: new sources.SqsDlq(new sqs.Queue(stack, 'Failures', { fifo: true })) })))
      .toThrow(/Lambda does not deliver failures to a FIFO SQS queue/);
    expect(buildKafka(({ stack }) => ({ onFailure: new sources.SnsDlq(new sns.Topic(stack, 'Failures', { fifo: true })) })))
      .toThrow(/Lambda does not deliver failures to a FIFO SNS topic/);
  });
});

describe('names Kafka and Lambda would refuse at deploy', () => {
  it('a topic name outside Kafka\'s characters is refused, quoted', () => {
    expect(buildKafka(() => ({ topic: 'orders/eu' }))).toThrow(/topic must be a Kafka topic name .*but "orders\/eu" was provided/);
  });

  it('a consumer group id outside Lambda\'s characters is refused, quoted', () => {
    expect(buildKafka(() => ({ consumerGroupId: 'ship orders' }))).toThrow(/consumerGroupId must be 1 to 200 letters, digits or -\/\*:_\+=\.@, but "ship orders" was provided/);
  });

  it('an MSK cluster ARN of another shape is refused, quoted', () => {
    expect(buildKafka(() => ({ source: { kind: 'msk', clusterArn: 'arn:aws:kafka:eu-west-1:123456789012:orders' } })))
      .toThrow(/source.clusterArn must be an MSK cluster ARN .*but "arn:aws:kafka:eu-west-1:123456789012:orders" was provided/);
    expect(buildKafka(() => ({ source: { kind: 'msk', clusterArn: MSK_CLUSTER_ARN } }))).not.toThrow();
  });
});

describe('a self-managed source that cannot be reached', () => {
  it('without brokers is refused', () => {
    expect(buildKafka(({ stack }) => ({ source: { kind: 'self-managed', bootstrapServers: [], secret: new secretsmanager.Secret(stack, 'Broker') } })))
      .toThrow(/source.bootstrapServers lists no broker: give at least one host:port/);
  });

  it('in a VPC without subnets or security group is refused, naming what is missing', () => {
    expect(buildKafka(({ cluster }) => ({ source: { kind: 'self-managed', bootstrapServers: ['10.0.0.1:9092'], vpc: cluster.vpc, vpcSubnets: {} } })))
      .toThrow(/source.vpc was provided without securityGroup/);
    expect(buildKafka(({ stack, cluster }) => ({
      source: { kind: 'self-managed', bootstrapServers: ['10.0.0.1:9092'], vpc: cluster.vpc, securityGroup: new ec2.SecurityGroup(stack, 'Sg', { vpc: cluster.vpc }) },
    }))).toThrow(/source.vpc was provided without vpcSubnets/);
  });

  it('over the internet without credentials is refused', () => {
    expect(buildKafka(() => ({ source: { kind: 'self-managed', bootstrapServers: ['b-1.example.com:9096'] } })))
      .toThrow(/Brokers outside a VPC are reached over the internet, which Lambda does only with credentials/);
  });
});

describe('an offset lag threshold that is not a number of records', () => {
  it('is refused, quoting the value', () => {
    expect(buildKafka(() => ({ offsetLagThreshold: 0 }))).toThrow(/offsetLagThreshold is a number of records, .*but 0 was provided/);
  });
});

describe('every refusal at once', () => {
  it('is said in one error, one a line', () => {
    expect(buildKafka(() => ({ batchSize: 0, retryAttempts: -1 }))).toThrow(/retryAttempts -1 .*\n.*batchSize must be/s);
  });
});
