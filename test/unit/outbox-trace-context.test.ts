import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { PublishBatchCommand, SNSClient } from '@aws-sdk/client-sns';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { eventBridgeTarget, snsTarget, sqsTarget, type OutboxEntry } from '../../functions/inbox/outbox/index.js';
import { keyedAttributes, messageSize, traceAttributeBytes } from '../../functions/inbox/producer/sqs-entry.js';

const sqs = mockClient(SQSClient);
const sns = mockClient(SNSClient);
const events = mockClient(EventBridgeClient);
const signal = new AbortController().signal;
const TRACEPARENT = '00-5759e988bd862e3fe1be46a994272793-53995c3f42cd8ad8-01';

afterEach(() => {
  sqs.reset();
  sns.reset();
  events.reset();
});

const entry = (extra: Partial<OutboxEntry> = {}): OutboxEntry => ({
  id: '01923c4e-8a2b-7c3d-9e4f-5a6b7c8d9e01', consumer: 'ship-orders', target: 'shipped',
  body: '{"n":1}', attributes: {}, groupId: undefined, detailType: undefined, traceparent: TRACEPARENT, ...extra,
});
const nineAttributes = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`a${i}`, 'v']));

describe('each target sends the row\'s trace context on', () => {
  it('SQS: as the traceparent message attribute', async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [{ Id: '0', MessageId: 'm', MD5OfMessageBody: '' }], Failed: [] });
    await sqsTarget({ queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/shipped', client: new SQSClient({ region: 'us-east-1' }) }).publish([entry()], { signal });

    expect(sqs.commandCalls(SendMessageBatchCommand)[0]!.args[0].input.Entries![0]!.MessageAttributes).toEqual({
      'idempotency-key': { DataType: 'String', StringValue: entry().id },
      traceparent: { DataType: 'String', StringValue: TRACEPARENT },
    });
  });

  it('SNS: as the traceparent message attribute', async () => {
    sns.on(PublishBatchCommand).resolves({ Successful: [{ Id: '0' }], Failed: [] });
    await snsTarget({ topicArn: 'arn:aws:sns:us-east-1:123456789012:notices', client: new SNSClient({ region: 'us-east-1' }) }).publish([entry()], { signal });

    expect(sns.commandCalls(PublishBatchCommand)[0]!.args[0].input.PublishBatchRequestEntries![0]!.MessageAttributes?.['traceparent'])
      .toEqual({ DataType: 'String', StringValue: TRACEPARENT });
  });

  it('EventBridge: as the entry\'s TraceHeader in X-Ray\'s format, which EventBridge passes on to its targets', async () => {
    events.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] });
    await eventBridgeTarget({ eventBusName: 'orders', client: new EventBridgeClient({ region: 'us-east-1' }) }).publish([entry()], { signal });

    expect(events.commandCalls(PutEventsCommand)[0]!.args[0].input.Entries![0]!.TraceHeader)
      .toBe('Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1');
  });

  it('gives way to the sender\'s attributes: a message with nine of them and the key goes without it', async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [{ Id: '0', MessageId: 'm', MD5OfMessageBody: '' }], Failed: [] });
    await sqsTarget({ queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/shipped', client: new SQSClient({ region: 'us-east-1' }) })
      .publish([entry({ attributes: nineAttributes })], { signal });

    const attributes = sqs.commandCalls(SendMessageBatchCommand)[0]!.args[0].input.Entries![0]!.MessageAttributes!;
    expect(Object.keys(attributes)).toHaveLength(10);
    expect(attributes['traceparent']).toBeUndefined();
  });

  it('gives way to the message\'s bytes: a row that fits its queue only without it goes without it, one with room with it', async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [{ Id: '0', MessageId: 'm', MD5OfMessageBody: '' }], Failed: [] });
    const target = sqsTarget({ queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/shipped', client: new SQSClient({ region: 'us-east-1' }), maxMessageBytes: 1024 });
    const keyBytes = messageSize('', keyedAttributes({}, entry().id));

    await target.publish([entry({ body: 'x'.repeat(1024 - keyBytes) })], { signal });
    await target.publish([entry({ body: 'x'.repeat(1024 - keyBytes - traceAttributeBytes(TRACEPARENT)) })], { signal });

    const sent = sqs.commandCalls(SendMessageBatchCommand).map((call) => call.args[0].input.Entries![0]!.MessageAttributes!);
    expect(sent.map((attributes) => attributes['traceparent']?.StringValue)).toEqual([undefined, TRACEPARENT]);
    expect(sent.map((attributes) => attributes['idempotency-key']?.StringValue)).toEqual([entry().id, entry().id]);
  });

  it('sends nothing of a trace for a row written untraced', async () => {
    events.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] });
    await eventBridgeTarget({ eventBusName: 'orders', client: new EventBridgeClient({ region: 'us-east-1' }) }).publish([entry({ traceparent: undefined })], { signal });

    expect(events.commandCalls(PutEventsCommand)[0]!.args[0].input.Entries![0]).not.toHaveProperty('TraceHeader');
  });
});
