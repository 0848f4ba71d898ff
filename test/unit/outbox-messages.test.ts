import { describe, expect, it } from 'vitest';
import { InboxConfigError, PermanentError, type OutboxMessage } from '../../functions/inbox/index.js';
import { OutboxMessageRefusedError } from '../../functions/inbox/outbox/index.js';
import { eventBridgeTarget, outboxTargetsFromEnv, snsTarget, sqsTarget, type Publisher } from '../../functions/inbox/outbox/index.js';
import { resolveOutbox } from '../../functions/inbox/outbox/outbox-options.js';
import { resolvePublisher } from '../../functions/inbox/outbox/publisher.js';

const ID = '01923c4e-8a2b-7c3d-9e4f-5a6b7c8d9e0f';
const QUEUE = 'https://sqs.us-east-1.amazonaws.com/123456789012/shipped';
const TOPIC = 'arn:aws:sns:us-east-1:123456789012:notices';
const context = { id: ID, consumer: 'ship-orders', target: 'shipped' };
const prepared = (publisher: Publisher, message: Omit<OutboxMessage, 'target'>) => resolvePublisher('shipped', publisher).prepare({ target: 'shipped', ...message }, context);
const refusal = (publisher: Publisher, message: Omit<OutboxMessage, 'target'>) => {
  try {
    prepared(publisher, message);
  } catch (error) {
    return error as Error;
  }
  throw new Error('the message was not refused');
};
// The key attribute the outbox adds: its name, its type and the 36 characters of the id.
const KEY_BYTES = 'idempotency-key'.length + 'String'.length + 36;

describe('sizes are checked when a row is written, as each target counts them', () => {
  it('SQS: 1 MiB by default since 2025, body and attributes (the key included) counted', () => {
    const room = 1_048_576 - KEY_BYTES - ('source'.length + 'String'.length + 'web'.length);
    expect(prepared(sqsTarget({ queueUrl: QUEUE }), { body: 'x'.repeat(room), attributes: { source: 'web' } }).sizeBytes).toBe(1_048_576);
    expect(refusal(sqsTarget({ queueUrl: QUEUE }), { body: 'x'.repeat(room + 1), attributes: { source: 'web' } }).message)
      .toMatch(/it is 1048577 bytes as the target counts them, over its 1048576/);
  });

  it('SQS: the queue\'s own MaximumMessageSize when given', () => {
    expect(refusal(sqsTarget({ queueUrl: QUEUE, maxMessageBytes: 1024 }), { body: 'x'.repeat(1024) })).toBeInstanceOf(OutboxMessageRefusedError);
  });

  it('SNS: 256 KiB by default, up to the 1 MiB a topic can be raised to', () => {
    expect(prepared(snsTarget({ topicArn: TOPIC }), { body: 'x'.repeat(262_144 - KEY_BYTES) }).sizeBytes).toBe(262_144);
    expect(refusal(snsTarget({ topicArn: TOPIC }), { body: 'x'.repeat(262_145 - KEY_BYTES) })).toBeInstanceOf(OutboxMessageRefusedError);
    expect(prepared(snsTarget({ topicArn: TOPIC, maxMessageBytes: 1_048_576 }), { body: 'x'.repeat(500_000) }).sizeBytes).toBe(500_000 + KEY_BYTES);
    expect(() => snsTarget({ topicArn: TOPIC, maxMessageBytes: 2_000_000 })).toThrow(/from 1024 to 1048576, but 2000000/);
  });

  it('EventBridge: Source, DetailType and the detail (the key in it) in UTF-8, under 1 MB a call', () => {
    const target = eventBridgeTarget({ eventBusName: 'orders' });
    const small = prepared(target, { body: { orderId: 'é' }, detailType: 'OrderShipped' });
    expect(small.body).toBe(`{"idempotency-key":"${ID}","orderId":"é"}`);
    expect(small.sizeBytes).toBe('ship-orders'.length + 'OrderShipped'.length + Buffer.byteLength(small.body));
    const fixed = 'ship-orders'.length + 'shipped'.length + `{"idempotency-key":"${ID}","a":""}`.length;
    expect(prepared(target, { body: { a: 'x'.repeat(1_048_575 - fixed) } }).sizeBytes).toBe(1_048_575);
    expect(refusal(target, { body: { a: 'x'.repeat(1_048_576 - fixed) } })).toBeInstanceOf(OutboxMessageRefusedError);
  });
});

describe('EventBridge carries the row\'s id in the detail', () => {
  const target = eventBridgeTarget({ eventBusName: 'orders', source: 'com.example', detailType: 'Shipped' });

  it('puts "idempotency-key" first and keeps the rest of the text as it was', () => {
    expect(prepared(target, { body: '{}' }).body).toBe(`{"idempotency-key":"${ID}"}`);
    expect(prepared(target, { body: ' { "n": 12345678901234567890 } ' }).body).toBe(` {"idempotency-key":"${ID}", "n": 12345678901234567890 } `);
  });

  it('takes the detail-type from the message, else the target, and refuses what an event cannot hold', () => {
    expect(prepared(target, { body: {}, detailType: 'Cancelled' }).detailType).toBe('Cancelled');
    expect(prepared(target, { body: {} }).detailType).toBe('Shipped');
    expect(refusal(target, { body: '[1]' }).message).toMatch(/not a JSON object/);
    expect(refusal(target, { body: 'not json' }).message).toMatch(/not JSON/);
    expect(refusal(target, { body: { 'idempotency-key': 'mine' } }).message).toMatch(/has a member idempotency-key/);
    expect(refusal(target, { body: {}, attributes: { a: 'b' } }).message).toMatch(/an EventBridge event has none/);
    expect(refusal(target, { body: {}, groupId: 'g' }).message).toMatch(/no message groups/);
    expect(refusal(target, { body: {}, detailType: 'x'.repeat(129) }).message).toMatch(/detailType is not 1 to 128/);
  });
});

describe('a message its target can never take is a PermanentError, refused with what to change', () => {
  it.each([
    ['no body', { body: '' }, /body is empty/],
    ['a NUL character', { body: 'a\u0000b' }, /NUL character/],
    ['a lone surrogate', { body: 'a\uD800b' }, /lone surrogate/],
    ['a character SQS refuses', { body: 'bell\u0007' }, /characters the target refuses/],
    ['the key as an attribute', { body: 'x', attributes: { 'idempotency-key': 'mine' } }, /which the outbox sets/],
    ['an attribute name SQS refuses', { body: 'x', attributes: { 'AWS.thing': 'v' } }, /attribute name "AWS.thing"/],
    ['an empty attribute', { body: 'x', attributes: { a: '' } }, /not a non-empty string/],
    ['ten attributes', { body: 'x', attributes: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`a${i}`, 'v'])) }, /takes 9 besides idempotency-key/],
    ['a detailType', { body: 'x', detailType: 'Shipped' }, /only an EventBridge target/],
  ])('SQS refuses %s', (_what, message, reason) => {
    const error = refusal(sqsTarget({ queueUrl: QUEUE }), message as Omit<OutboxMessage, 'target'>);
    expect(error).toBeInstanceOf(PermanentError);
    expect(error.message).toMatch(reason);
  });

  it('a FIFO queue or topic needs a groupId of 1 to 128 printable ASCII characters', () => {
    expect(refusal(sqsTarget({ queueUrl: `${QUEUE}.fifo` }), { body: 'x' }).message).toMatch(/no groupId, and the target is FIFO/);
    expect(refusal(snsTarget({ topicArn: `${TOPIC}.fifo` }), { body: 'x', groupId: 'a b' }).message).toMatch(/groupId is not 1 to 128/);
    expect(prepared(sqsTarget({ queueUrl: QUEUE }), { body: 'x', groupId: 'tenant-1' }).groupId).toBe('tenant-1');
  });

  it('a Publisher of your own checks the body, the attributes and its maxMessageBytes by default', () => {
    const webhook: Publisher = { maxMessageBytes: 10, publish: async (entries) => entries.map(() => ({ kind: 'sent' })) };
    expect(prepared(webhook, { body: { a: 1 } })).toEqual({ body: '{"a":1}', attributes: {}, groupId: undefined, detailType: undefined, sizeBytes: 7 });
    expect(refusal(webhook, { body: 'x'.repeat(11) })).toBeInstanceOf(OutboxMessageRefusedError);
  });
});

describe('the outbox options are checked once', () => {
  const targets = { shipped: sqsTarget({ queueUrl: QUEUE }) };

  it('statement mode needs messages; transaction mode takes none', () => {
    expect(() => resolveOutbox({ targets }, 'statement')).toThrow(/statement mode the outbox needs messages/);
    expect(() => resolveOutbox({ targets, messages: () => [] } as never, 'transaction')).toThrow(/transaction mode the outbox takes no messages/);
    expect(resolveOutbox({ targets }, 'transaction')).toMatchObject({ maxAttempts: 3 });
    expect(resolveOutbox({ targets, maxAttempts: undefined }, 'transaction')).toMatchObject({ maxAttempts: 3 });
  });

  it('refuses no targets, a bad name, something that is not a Publisher and bad limits', () => {
    expect(() => resolveOutbox({ targets: {} }, 'transaction')).toThrow(InboxConfigError);
    expect(() => resolveOutbox({ targets: { 'no spaces': targets.shipped } }, 'transaction')).toThrow(/but "no spaces" was given/);
    expect(() => resolveOutbox({ targets: { shipped: {} as Publisher } }, 'transaction')).toThrow(/must be a Publisher/);
    expect(() => resolvePublisher('hook', { maxBatchEntries: 0, publish: async () => [] })).toThrow(/maxBatchEntries must be a whole number from 1 to 100, but 0/);
    expect(() => resolveOutbox({ targets, maxAttempts: 0 }, 'transaction')).toThrow(/maxAttempts must be a whole number from 1 to 10, but 0/);
  });

  it('refuses target builders given what cannot be a queue, topic or bus', () => {
    expect(() => sqsTarget({ queueUrl: 'shipped' })).toThrow(/needs the queue URL/);
    expect(() => sqsTarget({ queueUrl: QUEUE, maxMessageBytes: 2_000_000 })).toThrow(/from 1024 to 1048576/);
    expect(() => snsTarget({ topicArn: 'notices' })).toThrow(/needs the topic's ARN/);
    expect(() => eventBridgeTarget({ eventBusName: 'no spaces here' })).toThrow(/needs the event bus's name or ARN/);
  });
});

describe('outboxTargetsFromEnv reads what the infrastructure put in INBOX_OUTBOX_TARGETS', () => {
  it('makes a publisher per target, FIFO from the URL or ARN', () => {
    const targets = outboxTargetsFromEnv({ env: { INBOX_OUTBOX_TARGETS: JSON.stringify({
      shipped: { type: 'sqs', queueUrl: `${QUEUE}.fifo` },
      notices: { type: 'sns', topicArn: TOPIC, maxMessageBytes: 1_048_576 },
      events: { type: 'eventbridge', eventBusName: 'orders', source: 'com.example' },
    }) } });

    expect(Object.keys(targets)).toEqual(['shipped', 'notices', 'events']);
    expect([targets.shipped!.fifo, targets.notices!.fifo, targets.events!.fifo]).toEqual([true, false, false]);
    expect(targets.notices!.maxMessageBytes).toBe(1_048_576);
  });

  it.each([
    ['unset', {}, /INBOX_OUTBOX_TARGETS is not set/],
    ['not JSON', { INBOX_OUTBOX_TARGETS: '{shipped' }, /is not JSON/],
    ['empty', { INBOX_OUTBOX_TARGETS: '{}' }, /names no target/],
    ['of an unknown type', { INBOX_OUTBOX_TARGETS: '{"shipped":{"type":"kinesis"}}' }, /gives target shipped the type "kinesis": use sqs, sns or eventbridge/],
  ])('refuses a variable %s, naming it', (_what, env, reason) => {
    expect(() => outboxTargetsFromEnv({ env })).toThrow(reason);
  });

  it('refuses, at cold start, a variable without a name the handler says it sends to', () => {
    const env = { INBOX_OUTBOX_TARGETS: JSON.stringify({ walletEvents: { type: 'sns', topicArn: TOPIC } }) };

    expect(Object.keys(outboxTargetsFromEnv({ env, names: ['walletEvents'] }))).toEqual(['walletEvents']);
    expect(() => outboxTargetsFromEnv({ env, names: ['walletEvents', 'ledger'] })).toThrow(/names no target ledger, which the handler sends to/);
  });
});
