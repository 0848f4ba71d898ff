import { randomUUID } from 'node:crypto';
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { CreateTopicCommand, PublishCommand, SubscribeCommand } from '@aws-sdk/client-sns';
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, describe, expect, it } from 'vitest';
import { localEventBridgeClient, localSnsClient, localSqsClient, startEventBridge, startSns, startSqs } from '../../local/index.js';

// What a package user's outbox test needs from `sqs-inbox/local`, through that entry and the real SDK.
const closers: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

describe('a queue made with its DLQ, and its messages read without a receive', () => {
  it('createQueue gives the queue its DLQ and redrive policy; messages lists what each holds', async () => {
    let now = Date.now();
    const sqs = await startSqs({ now: () => now });
    const client = localSqsClient(sqs.endpoint);
    closers.push(() => sqs.close(), () => client.destroy());
    const name = `payments-${randomUUID().slice(0, 8)}.fifo`;

    const { queueUrl, deadLetterQueueUrl } = await sqs.createQueue(name, { attributes: { VisibilityTimeout: '1' }, deadLetter: { maxReceiveCount: 1 } });
    await client.send(new SendMessageCommand({
      QueueUrl: queueUrl, MessageBody: '{"walletId":"w-1"}', MessageGroupId: 'w-1', MessageDeduplicationId: 'd-1',
      MessageAttributes: { 'idempotency-key': { DataType: 'String', StringValue: 'k-1' } },
    }));

    expect(deadLetterQueueUrl).toMatch(/-dlq\.fifo$/);
    expect(sqs.messages(queueUrl)).toEqual([expect.objectContaining({
      body: '{"walletId":"w-1"}', messageAttributes: { 'idempotency-key': 'k-1' }, groupId: 'w-1', deduplicationId: 'd-1', receiveCount: 0,
    })]);
    // Listing is no receive: the message is still there to receive, once.
    expect((await client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl }))).Messages).toHaveLength(1);
    now += 2_000;
    // The second receive would exceed maxReceiveCount 1: SQS moves the message to the DLQ instead.
    expect((await client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl }))).Messages ?? []).toEqual([]);
    expect(sqs.messages(queueUrl)).toEqual([]);
    expect(sqs.messages(deadLetterQueueUrl!).map((message) => message.body)).toEqual(['{"walletId":"w-1"}']);
  });
});

describe('the SNS and EventBridge emulators are offered', () => {
  it('startSns records what a topic took, and refuses Subscribe when it has no SQS to deliver to', async () => {
    const sns = await startSns();
    const client = localSnsClient(sns.endpoint);
    closers.push(() => sns.close(), () => client.destroy());
    const { TopicArn } = await client.send(new CreateTopicCommand({ Name: 'wallet-events' }));

    await client.send(new PublishCommand({ TopicArn, Message: '{"walletId":"w-1"}', MessageAttributes: { 'idempotency-key': { DataType: 'String', StringValue: 'k-1' } } }));

    expect(sns.messages(TopicArn!).map((message) => message.message)).toEqual(['{"walletId":"w-1"}']);
    await expect(client.send(new SubscribeCommand({ TopicArn, Protocol: 'sqs', Endpoint: 'arn:aws:sqs:us-east-1:000000000000:notices' })))
      .rejects.toThrow(/start the local SNS with sqsEndpoint/);
  });

  it('with sqsEndpoint, delivers to subscribed queues as SNS does: a notification, or raw with message attributes', async () => {
    const sqs = await startSqs();
    const sns = await startSns({ sqsEndpoint: sqs.endpoint });
    const client = localSnsClient(sns.endpoint);
    closers.push(() => sqs.close(), () => sns.close(), () => client.destroy());
    const enveloped = await sqs.createQueue(`enveloped-${randomUUID().slice(0, 8)}`);
    const raw = await sqs.createQueue(`raw-${randomUUID().slice(0, 8)}`);
    const { TopicArn } = await client.send(new CreateTopicCommand({ Name: 'wallet-events' }));
    const arnOf = (queueUrl: string) => `arn:aws:sqs:${sqs.region}:${sqs.accountId}:${queueUrl.split('/').pop()!}`;
    await client.send(new SubscribeCommand({ TopicArn, Protocol: 'sqs', Endpoint: arnOf(enveloped.queueUrl) }));
    await client.send(new SubscribeCommand({ TopicArn, Protocol: 'sqs', Endpoint: arnOf(raw.queueUrl), Attributes: { RawMessageDelivery: 'true' } }));

    const { MessageId } = await client.send(new PublishCommand({
      TopicArn, Subject: 'credited', Message: '{"walletId":"w-1"}', MessageAttributes: { 'idempotency-key': { DataType: 'String', StringValue: 'k-1' } },
    }));

    const [notification] = sqs.messages(enveloped.queueUrl);
    expect(notification?.messageAttributes).toEqual({});
    expect(JSON.parse(notification!.body)).toEqual({
      Type: 'Notification', MessageId, TopicArn, Subject: 'credited', Message: '{"walletId":"w-1"}',
      Timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), SignatureVersion: '1', Signature: expect.any(String),
      SigningCertURL: expect.stringMatching(/^https:\/\/sns\./), UnsubscribeURL: expect.stringContaining(`SubscriptionArn=${TopicArn}:`),
      MessageAttributes: { 'idempotency-key': { Type: 'String', Value: 'k-1' } },
    });
    expect(sqs.messages(raw.queueUrl)).toEqual([expect.objectContaining({ body: '{"walletId":"w-1"}', messageAttributes: { 'idempotency-key': 'k-1' } })]);
  });

  it('a FIFO topic delivers to a FIFO queue with its group and deduplication ids, in order', async () => {
    const sqs = await startSqs();
    const sns = await startSns({ sqsEndpoint: sqs.endpoint });
    const client = localSnsClient(sns.endpoint);
    closers.push(() => sqs.close(), () => sns.close(), () => client.destroy());
    const { queueUrl } = await sqs.createQueue(`ledger-${randomUUID().slice(0, 8)}.fifo`);
    const { TopicArn } = await client.send(new CreateTopicCommand({ Name: 'wallet-events.fifo', Attributes: { FifoTopic: 'true' } }));
    await client.send(new SubscribeCommand({ TopicArn, Protocol: 'sqs', Endpoint: `arn:aws:sqs:${sqs.region}:${sqs.accountId}:${queueUrl.split('/').pop()!}`, Attributes: { RawMessageDelivery: 'true' } }));

    for (const n of [1, 2]) await client.send(new PublishCommand({ TopicArn, Message: `m-${n}`, MessageGroupId: 'w-1', MessageDeduplicationId: `d-${n}` }));

    expect(sqs.messages(queueUrl).map((m) => [m.body, m.groupId, m.deduplicationId])).toEqual([['m-1', 'w-1', 'd-1'], ['m-2', 'w-1', 'd-2']]);
  });

  it('startEventBridge records each event as a rule target gets it', async () => {
    const eventBridge = await startEventBridge();
    const client = localEventBridgeClient(eventBridge.endpoint);
    closers.push(() => eventBridge.close(), () => client.destroy());

    await client.send(new PutEventsCommand({ Entries: [{ Source: 'payments', DetailType: 'WalletCredited', Detail: '{"walletId":"w-1"}' }] }));

    expect(eventBridge.events()).toEqual([expect.objectContaining({ source: 'payments', 'detail-type': 'WalletCredited', detail: { walletId: 'w-1' } })]);
  });
});
