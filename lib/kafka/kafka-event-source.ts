import { Fn, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { AuthenticationMethod } from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type { InboxKafkaSource, MskSource } from './inbox-kafka-consumer-props.js';

/** Where an event source mapping finds its Kafka cluster and how it signs in. */
export interface KafkaSourceMapping {
  readonly eventSourceArn?: string;
  readonly kafkaBootstrapServers?: string[];
  readonly sourceAccessConfigurations?: lambda.SourceAccessConfiguration[];
}

/** What the function's role must reach for its event source: the cluster, the topic, the group, a Kafka destination. */
export interface KafkaAccess {
  readonly source: InboxKafkaSource;
  readonly topic: string;
  readonly consumerGroupId: string;
  /** The `KafkaDlq` topic, without `kafka://`, when failures go to one. */
  readonly onFailureTopic: string | undefined;
}

/**
 * The network interface actions Lambda's pollers need in the cluster's VPC (AWS's
 * AWSLambdaMSKExecutionRole and the self-managed Kafka permissions page list the same six). The
 * Describe actions take no resource, and the subnets are not known at synth time, so they are
 * granted on `*`, in a statement of their own that the cdk-nag acknowledgment below names.
 */
export const KAFKA_POLLER_NETWORK_ACTIONS = [
  'ec2:CreateNetworkInterface',
  'ec2:DescribeNetworkInterfaces',
  'ec2:DescribeVpcs',
  'ec2:DeleteNetworkInterface',
  'ec2:DescribeSubnets',
  'ec2:DescribeSecurityGroups',
] as const;

const SOURCE_ACCESS_TYPE: Record<AuthenticationMethod, lambda.SourceAccessConfigurationType> = {
  [AuthenticationMethod.SASL_SCRAM_512_AUTH]: lambda.SourceAccessConfigurationType.SASL_SCRAM_512_AUTH,
  [AuthenticationMethod.SASL_SCRAM_256_AUTH]: lambda.SourceAccessConfigurationType.SASL_SCRAM_256_AUTH,
  [AuthenticationMethod.BASIC_AUTH]: lambda.SourceAccessConfigurationType.BASIC_AUTH,
  [AuthenticationMethod.CLIENT_CERTIFICATE_TLS_AUTH]: lambda.SourceAccessConfigurationType.CLIENT_CERTIFICATE_TLS_AUTH,
};

/**
 * The mapping's cluster settings, as the CDK's ManagedKafkaEventSource and
 * SelfManagedKafkaEventSource render them.
 *
 * @example
 * ```ts
 * new lambda.EventSourceMapping(this, 'EventSource', { target, kafkaTopic: 'orders', ...kafkaSourceMapping(source), ... });
 * ```
 */
export function kafkaSourceMapping(source: InboxKafkaSource): KafkaSourceMapping {
  if (source.kind === 'msk') {
    return {
      eventSourceArn: source.clusterArn,
      sourceAccessConfigurations: source.secret ? [{ type: lambda.SourceAccessConfigurationType.SASL_SCRAM_512_AUTH, uri: source.secret.secretArn }] : undefined,
    };
  }
  const access: lambda.SourceAccessConfiguration[] = [];
  if (source.secret) access.push({ type: SOURCE_ACCESS_TYPE[source.authenticationMethod ?? AuthenticationMethod.SASL_SCRAM_512_AUTH], uri: source.secret.secretArn });
  if (source.rootCACertificate) access.push({ type: lambda.SourceAccessConfigurationType.SERVER_ROOT_CA_CERTIFICATE, uri: source.rootCACertificate.secretArn });
  if (source.vpc && source.vpcSubnets && source.securityGroup) {
    access.push({ type: lambda.SourceAccessConfigurationType.VPC_SECURITY_GROUP, uri: source.securityGroup.securityGroupId });
    for (const subnetId of source.vpc.selectSubnets(source.vpcSubnets).subnetIds) access.push({ type: lambda.SourceAccessConfigurationType.VPC_SUBNET, uri: subnetId });
  }
  return { kafkaBootstrapServers: source.bootstrapServers, sourceAccessConfigurations: access.length > 0 ? access : undefined };
}

/** An MSK topic's or group's ARN from its cluster's: `...:cluster/<name>/<uuid>` becomes `...:<kind>/<name>/<uuid>/<resource>`. */
function mskResourceArn(clusterArn: string, kind: 'topic' | 'group', resource: string): string {
  const parts = Fn.split(':cluster/', clusterArn, 2);
  return Fn.join('', [Fn.select(0, parts), `:${kind}/`, Fn.select(1, parts), `/${resource}`]);
}

/** MSK IAM access control: what a consumer needs on the cluster, its topic and its group (and a producer on a Kafka destination). */
function mskIamStatements(source: MskSource, access: KafkaAccess): iam.PolicyStatement[] {
  const statements = [
    new iam.PolicyStatement({
      sid: 'MskIamConnect',
      actions: ['kafka-cluster:Connect', 'kafka-cluster:DescribeClusterDynamicConfiguration'],
      resources: [source.clusterArn],
    }),
    new iam.PolicyStatement({
      sid: 'MskIamReadTopic',
      actions: ['kafka-cluster:DescribeTopic', 'kafka-cluster:ReadData'],
      resources: [mskResourceArn(source.clusterArn, 'topic', access.topic)],
    }),
    new iam.PolicyStatement({
      sid: 'MskIamConsumerGroup',
      actions: ['kafka-cluster:DescribeGroup', 'kafka-cluster:AlterGroup'],
      resources: [mskResourceArn(source.clusterArn, 'group', access.consumerGroupId)],
    }),
  ];
  if (access.onFailureTopic !== undefined) {
    statements.push(new iam.PolicyStatement({
      sid: 'MskIamWriteOnFailureTopic',
      actions: ['kafka-cluster:DescribeTopic', 'kafka-cluster:WriteData'],
      resources: [mskResourceArn(source.clusterArn, 'topic', access.onFailureTopic)],
    }));
  }
  return statements;
}

/**
 * Grants the function's role what Lambda's pollers do with it: describe an MSK cluster and find its
 * brokers, sign in (the secrets, or MSK IAM on the topic and group alone), and manage the network
 * interfaces in the cluster's VPC (an MSK cluster always has one; a self-managed one when `vpc` is
 * given). The CDK's own Kafka event sources attach the AWS managed policy AWSLambdaMSKExecutionRole
 * for MSK and grant no network interface actions for a self-managed VPC; this grants exactly the
 * list AWS documents, scoped where IAM allows it, and acknowledges the one cdk-nag finding that
 * remains (the `*` the network actions need), with its reason.
 *
 * @example
 * ```ts
 * grantKafkaAccess(fn, { source, topic: 'orders', consumerGroupId, onFailureTopic: undefined });
 * ```
 */
export function grantKafkaAccess(fn: nodejs.NodejsFunction, access: KafkaAccess): void {
  const { source } = access;
  if (source.kind === 'msk') {
    fn.addToRolePolicy(new iam.PolicyStatement({
      sid: 'MskFindBrokers',
      actions: ['kafka:DescribeClusterV2', 'kafka:GetBootstrapBrokers'],
      resources: [source.clusterArn],
    }));
    if (source.secret) source.secret.grantRead(fn);
    else for (const statement of mskIamStatements(source, access)) fn.addToRolePolicy(statement);
  } else {
    source.secret?.grantRead(fn);
    source.rootCACertificate?.grantRead(fn);
  }
  if (source.kind === 'msk' || source.vpc !== undefined) {
    fn.addToRolePolicy(new iam.PolicyStatement({ sid: 'KafkaPollerNetworkInterfaces', actions: [...KAFKA_POLLER_NETWORK_ACTIONS], resources: ['*'] }));
    Validations.of(fn.role!).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: "Lambda's Kafka pollers create, describe and delete their network interfaces in the cluster's VPC with the function's role; "
        + 'the ec2 Describe actions support no resource, and the subnets are the cluster\'s, unknown at synth time. Only these six ec2 actions '
        + '(the list AWS documents for Kafka event sources) are granted on *.',
    });
  }
}
