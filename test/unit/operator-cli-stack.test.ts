import { CloudFormationClient, DescribeStacksCommand, type Output } from '@aws-sdk/client-cloudformation';
import { ExecuteStatementCommand, RDSDataClient } from '@aws-sdk/client-rds-data';
import { GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { openConnection } from '../../functions/inbox/operator/cli/connection.js';
import { redriveQueues } from '../../functions/inbox/operator/cli/dlq-commands.js';
import { readStackOutputs, resolveStackConnection } from '../../functions/inbox/operator/cli/stack-outputs.js';
import { OperatorCommandError } from '../../functions/inbox/operator/errors.js';
import { sql } from '../../functions/inbox/sql/sql.js';
import { sqsInbox } from '../support/operator-cli.js';
import { thrown } from '../support/thrown.js';

const CLUSTER = 'arn:aws:rds:eu-west-1:123456789012:cluster:inbox-cluster';
const SECRET = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:inbox-operator-AbCdEf';
const BILLING_SECRET = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:billing-operator-AbCdEf';
const QUEUE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders.fifo';
const DLQ = 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders-dlq.fifo';

const out = (OutputKey: string, OutputValue: string): Output => ({ OutputKey, OutputValue, Description: 'sqs-inbox' });
const INBOX: Output[] = [
  out('SqsInboxDatabaseInboxClusterArn', CLUSTER), out('SqsInboxDatabaseInboxOperatorSecretArn', SECRET), out('SqsInboxDatabaseInboxDatabaseName', 'inbox'),
];
const CONSUMERS: Output[] = [
  out('SqsInboxConsumerOrdersShipWorkerName', 'ship-order'), out('SqsInboxConsumerOrdersShipWorkerDatabase', 'Inbox'),
  out('SqsInboxConsumerOrdersShipWorkerQueueUrl', QUEUE), out('SqsInboxConsumerOrdersShipWorkerDlqUrl', DLQ),
  out('SqsInboxConsumerShippingName', 'shipping'), out('SqsInboxConsumerShippingDatabase', 'Inbox'),
];
const BILLING: Output[] = [
  out('SqsInboxDatabaseBillingClusterArn', CLUSTER), out('SqsInboxDatabaseBillingOperatorSecretArn', BILLING_SECRET), out('SqsInboxDatabaseBillingDatabaseName', 'billing'),
  out('SqsInboxConsumerInvoicesName', 'invoices'), out('SqsInboxConsumerInvoicesDatabase', 'Billing'),
];
const PROJECT: Output[] = [out('QueueUrl', QUEUE), out('ClusterArn', CLUSTER)];

const cloudFormation = mockClient(CloudFormationClient);
const rdsData = mockClient(RDSDataClient);
const sqs = mockClient(SQSClient);
afterEach(() => {
  cloudFormation.reset();
  rdsData.reset();
  sqs.reset();
});
const answering = (outputs: Output[]) => cloudFormation.on(DescribeStacksCommand).resolves({
  Stacks: [{ StackName: 'SqsInbox-dev', StackStatus: 'UPDATE_COMPLETE', CreationTime: new Date(0), Outputs: outputs }],
});
const noSuchStack = () => cloudFormation.on(DescribeStacksCommand).rejects(Object.assign(new Error('Stack with id Nope does not exist'), { name: 'ValidationError' }));

describe('--stack reads the stack\'s outputs with one DescribeStacks call', () => {
  it('asks for the stack by its name, and nothing more', async () => {
    answering([...INBOX, ...PROJECT]);
    expect(await readStackOutputs(new CloudFormationClient({ region: 'eu-west-1' }), 'SqsInbox-dev')).toEqual([...INBOX, ...PROJECT]);
    expect(cloudFormation.calls().map((call) => [call.args[0].constructor.name, call.args[0].input])).toEqual([['DescribeStacksCommand', { StackName: 'SqsInbox-dev' }]]);
  });

  it('says in one sentence that a stack does not exist, and lets other errors through as they are', async () => {
    noSuchStack();
    const error = await thrown(readStackOutputs(new CloudFormationClient({ region: 'eu-west-1' }), 'Nope'));
    expect(error).toBeInstanceOf(OperatorCommandError);
    expect((error as Error).message).toBe('No stack "Nope" in this region: check --stack, and --region (or AWS_REGION).');
    cloudFormation.reset();
    cloudFormation.on(DescribeStacksCommand).rejects(Object.assign(new Error('User is not authorized to perform: cloudformation:DescribeStacks'), { name: 'AccessDenied' }));
    expect(await thrown(readStackOutputs(new CloudFormationClient({ region: 'eu-west-1' }), 'SqsInbox-dev'))).toMatchObject({ name: 'AccessDenied' });
  });
});

describe('the outputs resolve into one database\'s connection and its consumers', () => {
  it('takes the only database, with its consumers by name, an SQS one\'s queues, a Kafka one\'s name alone; other outputs are not read', () => {
    expect(resolveStackConnection('SqsInbox-dev', [...PROJECT, ...CONSUMERS, ...INBOX])).toEqual({
      databaseId: 'Inbox', clusterArn: CLUSTER, secretArn: SECRET, database: 'inbox',
      consumers: [{ name: 'ship-order', queueUrl: QUEUE, deadLetterQueueUrl: DLQ }, { name: 'shipping' }],
    });
  });

  it('takes the database --database-id names among several, with its own consumers only', () => {
    expect(resolveStackConnection('SqsInbox-dev', [...INBOX, ...CONSUMERS, ...BILLING], 'Billing')).toEqual({
      databaseId: 'Billing', clusterArn: CLUSTER, secretArn: BILLING_SECRET, database: 'billing', consumers: [{ name: 'invoices' }],
    });
  });

  it('reads a key whose <id> ends like a field name as that <id>', () => {
    const tricky = INBOX.map(({ OutputKey, OutputValue }) => out(OutputKey!.replace('DatabaseInbox', 'DatabaseInboxDatabaseName'), OutputValue!));
    expect(resolveStackConnection('SqsInbox-dev', tricky)).toMatchObject({ databaseId: 'InboxDatabaseName', database: 'inbox' });
  });

  it('refuses, in one sentence that says what to give, a stack without sqs-inbox outputs, several databases without --database-id, an unknown one, a database without all its outputs', () => {
    const refusal = (outputs: Output[], id?: string) => {
      try {
        resolveStackConnection('SqsInbox-dev', outputs, id);
      } catch (error) {
        expect(error).toBeInstanceOf(OperatorCommandError);
        return (error as Error).message;
      }
      throw new Error('resolved');
    };
    expect(refusal(PROJECT)).toBe('Stack "SqsInbox-dev" has no sqs-inbox outputs (SqsInboxDatabase<id>ClusterArn and the others): '
      + 'give the stack that holds the InboxDatabase, deployed with this version of sqs-inbox/cdk.');
    expect(refusal([...INBOX, ...BILLING])).toBe('Stack "SqsInbox-dev" has 2 inbox databases: choose one with --database-id (Billing, Inbox).');
    expect(refusal([...INBOX, ...BILLING], 'Orders')).toBe('Stack "SqsInbox-dev" has no inbox database "Orders": give --database-id one of Billing, Inbox.');
    expect(refusal(INBOX.slice(0, 2))).toBe('Stack "SqsInbox-dev" lacks SqsInboxDatabaseInboxDatabaseName: deploy it again with this version of sqs-inbox/cdk.');
  });
});

describe('`sqs-inbox --stack NAME` signs in with what the stack names', () => {
  const io = { env: {}, stdout: () => undefined, stderr: () => undefined, interactive: false, ask: async () => false, actor: 'on-call@test' };

  it('sends the Data API the cluster, the operator\'s secret and the database of the stack\'s outputs, in the region given', async () => {
    answering([...INBOX, ...CONSUMERS]);
    rdsData.on(ExecuteStatementCommand).resolves({ numberOfRecordsUpdated: 0 });
    const { db } = await openConnection({ stack: 'SqsInbox-dev', region: 'eu-west-1' }, io);
    await db.query(sql`SELECT 1`);
    await db.close();
    expect(rdsData.commandCalls(ExecuteStatementCommand)[0]?.args[0].input).toMatchObject({ resourceArn: CLUSTER, secretArn: SECRET, database: 'inbox' });
    expect(await cloudFormation.call(0).thisValue.config.region()).toBe('eu-west-1');
  });

  it('lets a flag win over an output, and reads no DATABASE_URL beside --stack', async () => {
    answering(INBOX);
    rdsData.on(ExecuteStatementCommand).resolves({ numberOfRecordsUpdated: 0 });
    const { db } = await openConnection({ stack: 'SqsInbox-dev', database: 'inbox_copy' }, { ...io, env: { DATABASE_URL: 'postgres://nobody@localhost:1/none' } });
    await db.query(sql`SELECT 1`);
    await db.close();
    expect(rdsData.commandCalls(ExecuteStatementCommand)[0]?.args[0].input).toMatchObject({ resourceArn: CLUSTER, secretArn: SECRET, database: 'inbox_copy' });
  });

  it('exits 2 with one sentence for a stack that does not exist, --database-id without --stack, and --stack beside --database-url', async () => {
    noSuchStack();
    const runs = [
      await sqsInbox(['status', '--stack', 'Nope'], { env: {} }),
      await sqsInbox(['status', '--database-id', 'Inbox'], { env: {} }),
      await sqsInbox(['status', '--stack', 'SqsInbox-dev', '--database-url', 'postgres://localhost/x'], { env: {} }),
    ];
    expect(runs.map((run) => [run.code, run.stdout, run.stderr])).toEqual([
      [2, '', 'sqs-inbox status: No stack "Nope" in this region: check --stack, and --region (or AWS_REGION).\n'],
      [2, '', 'sqs-inbox status: --database-id chooses among the databases of a stack: give --stack too.\n'],
      [2, '', 'sqs-inbox status: --stack and --database-url name two databases: give one of them.\n'],
    ]);
  });
});

describe('`dlq redrive --stack` takes the consumer\'s DLQ and queue from the stack\'s outputs', () => {
  const stack = resolveStackConnection('SqsInbox-dev', [...INBOX, ...CONSUMERS]);
  const refusal = (values: Record<string, string>, from: typeof stack | undefined) => {
    try {
      redriveQueues(values, from);
    } catch (error) {
      expect(error).toBeInstanceOf(OperatorCommandError);
      return (error as Error).message;
    }
    throw new Error('resolved');
  };

  it('the consumer --consumer names, or the database\'s one consumer with queues; a flag wins over its output', () => {
    expect(redriveQueues({ consumer: 'ship-order' }, stack)).toEqual({ dlqUrl: DLQ, queueUrl: QUEUE });
    expect(redriveQueues({}, stack)).toEqual({ dlqUrl: DLQ, queueUrl: QUEUE });
    expect(redriveQueues({ 'queue-url': 'https://sqs.eu-west-1.amazonaws.com/123456789012/replay.fifo' }, stack))
      .toEqual({ dlqUrl: DLQ, queueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/replay.fifo' });
    expect(redriveQueues({ 'dlq-url': 'd', 'queue-url': 'q' }, undefined)).toEqual({ dlqUrl: 'd', queueUrl: 'q' });
  });

  it('refuses, saying what to give, a consumer the stack does not have, one without queues, a choice among several, and no stack and no URLs', () => {
    const two = { ...stack, consumers: [...stack.consumers, { name: 'billing', queueUrl: 'https://sqs/q', deadLetterQueueUrl: 'https://sqs/d' }] };
    expect(refusal({ consumer: 'invoices' }, stack)).toBe('Database Inbox of the stack has no consumer "invoices"; its consumers: ship-order, shipping.');
    expect(refusal({ consumer: 'shipping' }, stack)).toBe('Consumer "shipping" has no SQS queue and DLQ among the stack\'s outputs (a Kafka consumer\'s failures go to its on-failure destination): give --dlq-url and --queue-url.');
    expect(refusal({}, two)).toBe('Database Inbox of the stack has 2 consumers with an SQS queue and a DLQ: give --consumer, one of: ship-order, shipping, billing.');
    expect(refusal({ 'dlq-url': DLQ }, undefined)).toBe('`sqs-inbox dlq redrive` needs --dlq-url and --queue-url (their URLs, as `aws sqs get-queue-url` gives them), or --stack and --consumer to read them from the stack\'s outputs.');
  });

  it('surveys the DLQ of the stack\'s consumer in the region given, and says where a move would go', async () => {
    answering([...INBOX, ...CONSUMERS]);
    sqs.on(GetQueueAttributesCommand).resolves({ Attributes: { QueueArn: 'arn:aws:sqs:eu-west-1:123456789012:orders-dlq.fifo', ApproximateNumberOfMessages: '0' } });
    sqs.on(ReceiveMessageCommand).resolves({ Messages: [] });

    const run = await sqsInbox(['dlq', 'redrive', '--stack', 'SqsInbox-dev', '--consumer', 'ship-order', '--region', 'eu-west-1', '--dry-run'], { env: {} });

    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Would move 0 messages to ${QUEUE}.`);
    expect(sqs.commandCalls(GetQueueAttributesCommand).map((call) => call.args[0].input.QueueUrl)).toEqual([DLQ]);
    expect(sqs.commandCalls(ReceiveMessageCommand).map((call) => call.args[0].input.QueueUrl)).toEqual([DLQ]);
    expect(await sqs.call(0).thisValue.config.region()).toBe('eu-west-1');
  });
});
