import { Template } from 'aws-cdk-lib/assertions';
import type { Output } from '@aws-sdk/client-cloudformation';
import { Construct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { resolveStackConnection } from '../../functions/inbox/operator/cli/stack-outputs.js';
import { InboxDatabase } from '../../lib/database/inbox-database.js';
import { InboxConsumer } from '../../lib/sqs/inbox-consumer.js';
import { WORKER_ENTRY } from './consumer-fixture.js';
import { bareStack } from './database-fixture.js';
import { operatorStack } from './operator-fixture.js';
import { renderedText } from './template-text.js';

type TemplateOutput = { Value: unknown; Description?: string; Export?: unknown };

/** The sqs-inbox outputs of a template as DescribeStacks answers them, each value as CloudFormation renders it (a reference as `<Ref X>`). */
function describedOutputs(outputs: Record<string, TemplateOutput>): Output[] {
  return Object.entries(outputs).map(([OutputKey, output]) => ({ OutputKey, OutputValue: renderedText(output.Value), Description: output.Description }));
}

const { stack, database, orders, refunds, shipping } = operatorStack();
const outputs = Template.fromStack(stack).toJSON().Outputs as Record<string, TemplateOutput>;
const rendered = (value: string) => renderedText(stack.resolve(value));

describe('the stack outputs an InboxDatabase and its consumers make', () => {
  it('are keyed SqsInboxDatabase<id><field> and SqsInboxConsumer<id><field>, <id> the construct\'s path in its stack; a Kafka consumer has no queue outputs', () => {
    expect(Object.keys(outputs).sort()).toEqual([
      'SqsInboxConsumerOrdersShipWorkerDatabase', 'SqsInboxConsumerOrdersShipWorkerDlqUrl', 'SqsInboxConsumerOrdersShipWorkerName', 'SqsInboxConsumerOrdersShipWorkerQueueUrl',
      'SqsInboxConsumerRefundsDatabase', 'SqsInboxConsumerRefundsDlqUrl', 'SqsInboxConsumerRefundsName', 'SqsInboxConsumerRefundsQueueUrl',
      'SqsInboxConsumerShippingDatabase', 'SqsInboxConsumerShippingName',
      'SqsInboxDatabaseInboxClusterArn', 'SqsInboxDatabaseInboxDatabaseName', 'SqsInboxDatabaseInboxOperatorSecretArn',
    ]);
  });

  it('are not CloudFormation exports, which would tie other stacks to them', () => {
    expect(Object.values(outputs).filter((output) => output.Export !== undefined)).toEqual([]);
  });

  it('are exactly what `sqs-inbox --stack` resolves: the cluster, the operator\'s secret, the database, and each consumer', () => {
    expect(resolveStackConnection('OperatorTest', describedOutputs(outputs))).toEqual({
      databaseId: 'Inbox',
      clusterArn: rendered(database.cluster.clusterArn),
      secretArn: rendered(database.operatorRole.secret.secretArn),
      database: 'inbox',
      consumers: [
        { name: refunds.metricSource.serviceName, queueUrl: rendered(refunds.queue.queueUrl), deadLetterQueueUrl: rendered(refunds.deadLetterQueue!.queueUrl) },
        { name: 'ship-order', queueUrl: rendered(orders.queue.queueUrl), deadLetterQueueUrl: rendered(orders.deadLetterQueue!.queueUrl) },
        { name: shipping.metricSource.serviceName },
      ].sort((a, b) => a.name.localeCompare(b.name)),
    });
  });
});

describe('a stack with two InboxDatabases', () => {
  it('keys each one\'s outputs and its consumers\' apart, and `--database-id` chooses between them', () => {
    const two = bareStack('TwoDatabases');
    const orders = new InboxDatabase(two, 'Orders');
    const billing = new InboxDatabase(new Construct(two, 'Billing'), 'inbox-db', { cluster: orders.cluster, ownerSecret: orders.ownerSecret, databaseName: 'billing',
      cleanupRole: 'billing_cleanup', operatorRole: 'billing_operator' });
    new InboxConsumer(two, 'Invoices', { database: billing, entry: WORKER_ENTRY, serviceName: 'invoices' });
    const described = describedOutputs(Template.fromStack(two).toJSON().Outputs as Record<string, TemplateOutput>);
    expect(() => resolveStackConnection('TwoDatabases', described)).toThrow(/has 2 inbox databases: choose one with --database-id \(BillingInboxDb, Orders\)/);
    expect(resolveStackConnection('TwoDatabases', described, 'BillingInboxDb')).toMatchObject({
      databaseId: 'BillingInboxDb', database: 'billing', secretArn: renderedText(two.resolve(billing.operatorRole.secret.secretArn)), consumers: [{ name: 'invoices' }],
    });
    expect(resolveStackConnection('TwoDatabases', described, 'Orders')).toMatchObject({ database: 'inbox', consumers: [] });
  });

  it('refuses at synth two constructs whose paths make one <id>', () => {
    const clash = bareStack('Clash');
    new InboxDatabase(clash, 'inbox-a');
    new InboxDatabase(clash, 'InboxA', { cleanupRole: 'other_cleanup', operatorRole: 'other_operator' });
    expect(() => Template.fromStack(clash)).toThrow(/SqsInboxDatabaseInboxAClusterArn/);
  });
});
