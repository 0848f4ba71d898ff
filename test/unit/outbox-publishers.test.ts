import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { PublishBatchCommand, SNSClient } from '@aws-sdk/client-sns';
import { SendMessageBatchCommand, SQSClient, SQSServiceException } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { eventBridgeTarget, snsTarget, sqsTarget, type OutboxEntry } from '../../functions/inbox/outbox/index.js';

const sqs = mockClient(SQSClient);
const sns = mockClient(SNSClient);
const events = mockClient(EventBridgeClient);
const QUEUE = 'https://sqs.us-east-1.amazonaws.com/123456789012/shipped';
const signal = new AbortController().signal;

afterEach(() => {
  sqs.reset();
  sns.reset();
  events.reset();
});

const entry = (n: number, extra: Partial<OutboxEntry> = {}): OutboxEntry => ({
  id: `01923c4e-8a2b-7c3d-9e4f-5a6b7c8d9e${String(n).padStart(2, '0')}`, consumer: 'ship-orders', target: 'shipped',
  body: `{"n":${n}}`, attributes: {}, groupId: undefined, detailType: undefined, ...extra,
});
const failure = (name: string, fault: 'client' | 'server', status: number) => new SQSServiceException({ name, $fault: fault, $metadata: { httpStatusCode: status }, message: name });

describe('each target sends the row\'s id as the idempotency key', () => {
  it('SQS: the idempotency-key attribute; on FIFO also MessageDeduplicationId, the row\'s group as MessageGroupId', async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [{ Id: '0', MessageId: 'm', MD5OfMessageBody: '' }], Failed: [] });
    await sqsTarget({ queueUrl: `${QUEUE}.fifo`, client: new SQSClient({ region: 'us-east-1' }) }).publish([entry(1, { groupId: 'c-1', attributes: { source: 'web' } })], { signal });

    expect(sqs.commandCalls(SendMessageBatchCommand)[0]!.args[0].input).toEqual({
      QueueUrl: `${QUEUE}.fifo`,
      Entries: [{
        Id: '0', MessageBody: '{"n":1}', MessageGroupId: 'c-1', MessageDeduplicationId: entry(1).id,
        MessageAttributes: { source: { DataType: 'String', StringValue: 'web' }, 'idempotency-key': { DataType: 'String', StringValue: entry(1).id } },
      }],
    });
  });

  it('SNS: the idempotency-key attribute, and on a FIFO topic the deduplication id and group', async () => {
    sns.on(PublishBatchCommand).resolves({ Successful: [{ Id: '0' }], Failed: [] });
    const topicArn = 'arn:aws:sns:us-east-1:123456789012:notices.fifo';
    await snsTarget({ topicArn, client: new SNSClient({ region: 'us-east-1' }) }).publish([entry(2, { groupId: 'c-2' })], { signal });

    expect(sns.commandCalls(PublishBatchCommand)[0]!.args[0].input).toEqual({
      TopicArn: topicArn,
      PublishBatchRequestEntries: [{
        Id: '0', Message: '{"n":2}', MessageGroupId: 'c-2', MessageDeduplicationId: entry(2).id,
        MessageAttributes: { 'idempotency-key': { DataType: 'String', StringValue: entry(2).id } },
      }],
    });
  });

  it('EventBridge: the detail as the row holds it (the key in it), the source the consumer\'s, the detail-type the row\'s or the target\'s', async () => {
    events.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }, { EventId: 'e-2' }] });
    await eventBridgeTarget({ eventBusName: 'orders', client: new EventBridgeClient({ region: 'us-east-1' }) })
      .publish([entry(3, { detailType: 'OrderShipped' }), entry(4)], { signal });

    expect(events.commandCalls(PutEventsCommand)[0]!.args[0].input).toEqual({ Entries: [
      { EventBusName: 'orders', Source: 'ship-orders', DetailType: 'OrderShipped', Detail: '{"n":3}' },
      { EventBusName: 'orders', Source: 'ship-orders', DetailType: 'shipped', Detail: '{"n":4}' },
    ] });
  });
});

describe('answers, entry by entry', () => {
  const target = () => sqsTarget({ queueUrl: QUEUE, client: new SQSClient({ region: 'us-east-1' }) });

  it('SQS Successful is sent, Failed as the sender\'s fault refused, Failed otherwise or not acknowledged sent again', async () => {
    sqs.on(SendMessageBatchCommand).resolves({
      Successful: [{ Id: '0', MessageId: 'm', MD5OfMessageBody: '' }],
      Failed: [{ Id: '1', SenderFault: true, Code: 'InvalidParameterValue', Message: 'bad' }, { Id: '2', SenderFault: false, Code: 'InternalError', Message: 'busy' }],
    });
    expect(await target().publish([entry(0), entry(1), entry(2), entry(3)], { signal })).toEqual([
      { kind: 'sent' },
      { kind: 'refused', reason: 'InvalidParameterValue: bad' },
      { kind: 'retry', reason: 'InternalError: busy' },
      { kind: 'retry', reason: 'not acknowledged in the batch response' },
    ]);
  });

  it('EventBridge: an EventId is sent; InternalFailure and ThrottlingException and rights go again; other codes are refused', async () => {
    events.on(PutEventsCommand).resolves({ FailedEntryCount: 4, Entries: [
      { EventId: 'e' }, { ErrorCode: 'ThrottlingException', ErrorMessage: 'slow down' }, { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' },
      { ErrorCode: 'NotAuthorizedForSourceException', ErrorMessage: 'no' }, { ErrorCode: 'InternalFailure', ErrorMessage: 'oops' },
    ] });
    const answers = await eventBridgeTarget({ eventBusName: 'orders', client: new EventBridgeClient({ region: 'us-east-1' }) }).publish([0, 1, 2, 3, 4].map((n) => entry(n)), { signal });
    expect(answers.map((answer) => answer.kind)).toEqual(['sent', 'retry', 'refused', 'retry', 'retry']);
  });

  it('a queue that does not exist refuses every entry for ever; throttling, a server error and missing rights go again', async () => {
    for (const [error, kind] of [
      [failure('QueueDoesNotExist', 'client', 400), 'refused'],
      [failure('RequestThrottled', 'client', 400), 'retry'],
      [failure('InternalError', 'server', 500), 'retry'],
      [failure('AccessDenied', 'client', 403), 'retry'],
      [failure('KmsAccessDenied', 'client', 400), 'retry'],
    ] as const) {
      sqs.reset();
      sqs.on(SendMessageBatchCommand).rejects(error);
      expect((await target().publish([entry(0), entry(1)], { signal })).map((answer) => answer.kind)).toEqual([kind, kind]);
    }
  });

  it('a request refused as a whole for what it holds is tried entry by entry, so one bad entry does not keep the others back', async () => {
    sqs.on(SendMessageBatchCommand).callsFake((input) => {
      if (input.Entries.length > 1 || input.Entries[0].MessageBody.includes('"n":1')) throw failure('InvalidParameterValue', 'client', 400);
      return { Successful: [{ Id: input.Entries[0].Id, MessageId: 'm', MD5OfMessageBody: '' }], Failed: [] };
    });
    const answers = await target().publish([entry(0), entry(1), entry(2)], { signal });

    expect(answers).toEqual([{ kind: 'sent' }, { kind: 'refused', reason: 'InvalidParameterValue: InvalidParameterValue' }, { kind: 'sent' }]);
    expect(sqs.commandCalls(SendMessageBatchCommand).map((call) => call.args[0].input.Entries?.length)).toEqual([3, 1, 1, 1]);
  });
});
