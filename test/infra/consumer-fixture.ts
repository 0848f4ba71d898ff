import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as rds from 'aws-cdk-lib/aws-rds';
import { fileURLToPath } from 'node:url';
import { InboxConsumer } from '../../lib/sqs/inbox-consumer.js';
import type { InboxConsumerProps } from '../../lib/sqs/inbox-consumer-props.js';

/** An entry that exists; its code is never bundled here (bundling is switched off below). */
export const WORKER_ENTRY = fileURLToPath(new URL('../../functions/order-worker/index.ts', import.meta.url));

/**
 * A stack with a Data API cluster, ready for consumers. Bundling is skipped: these tests judge the
 * template, and inbox-stack.test.ts bundles the real code once.
 */
export function clusterStack(): { stack: Stack; cluster: rds.DatabaseCluster } {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'ConsumerTest');
  const vpc = new ec2.Vpc(stack, 'Vpc', {
    natGateways: 0,
    subnetConfiguration: [{ name: 'db', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }],
  });
  const cluster = new rds.DatabaseCluster(stack, 'Db', {
    engine: rds.DatabaseClusterEngine.auroraPostgres({ version: rds.AuroraPostgresEngineVersion.VER_17_9 }),
    writer: rds.ClusterInstance.serverlessV2('writer'),
    vpc,
    vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
    enableDataApi: true,
  });
  return { stack, cluster };
}

/** The props every consumer test starts from. */
export function baseProps(cluster: rds.IDatabaseCluster): InboxConsumerProps {
  return { cluster, databaseName: 'inbox', entry: WORKER_ENTRY };
}

/**
 * One consumer in a fresh stack, with `overrides` on top of the base props.
 *
 * @example
 * ```ts
 * const { template } = consumerTemplate({ queueProps: { fifo: true } });
 * ```
 */
export function consumerTemplate(overrides: Partial<InboxConsumerProps> = {}): {
  stack: Stack; cluster: rds.DatabaseCluster; consumer: InboxConsumer; template: Template;
} {
  const { stack, cluster } = clusterStack();
  const consumer = new InboxConsumer(stack, 'Orders', { ...baseProps(cluster), ...overrides });
  return { stack, cluster, consumer, template: Template.fromStack(stack) };
}
