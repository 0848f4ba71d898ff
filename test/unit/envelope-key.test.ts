import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { envelopeOf } from '../../functions/inbox/sqs/envelope-key.js';
import { sqsDefaultKey, sqsSource } from '../../functions/inbox/sqs/sqs-source.js';
import { sqsRecord } from '../support/sqs-events.js';

const KEY = '01923c4e-8a2b-7c3d-9e4f-5a6b7c8d9e0f';
/** An EventBridge event as a rule delivers it to a queue. */
const event = (detail: object, id = 'e-1') => ({
  version: '0', id, 'detail-type': 'OrderShipped', source: 'ship-orders', account: '123456789012',
  time: '2025-03-01T10:20:30Z', region: 'us-east-1', resources: [], detail,
});
/** An SNS notification as a subscription without raw delivery puts it in a queue. */
const notification = (attributes: object, messageId = 'n-1') => ({
  Type: 'Notification', MessageId: messageId, TopicArn: 'arn:aws:sns:us-east-1:123456789012:notices', Message: '{"orderId":1}',
  Timestamp: '2025-03-01T10:20:30.000Z', SignatureVersion: '1', Signature: 'c2ln', MessageAttributes: attributes,
});

describe('the default key reads the key of an EventBridge event or SNS notification in the body', () => {
  it('an EventBridge event\'s detail "idempotency-key"', () => {
    expect(sqsDefaultKey(sqsRecord(event({ 'idempotency-key': KEY, orderId: 1 }), { key: null }))).toEqual({ key: KEY });
  });

  it('an SNS notification\'s idempotency-key String attribute', () => {
    expect(sqsDefaultKey(sqsRecord(notification({ 'idempotency-key': { Type: 'String', Value: KEY } }), { key: null }))).toEqual({ key: KEY });
  });

  it('after the message attribute, before MessageDeduplicationId', () => {
    expect(sqsDefaultKey(sqsRecord(event({ 'idempotency-key': KEY }), { key: 'attribute-key' }))).toEqual({ key: 'attribute-key' });
    expect(sqsDefaultKey(sqsRecord(event({ 'idempotency-key': KEY }), { deduplicationId: 'dedup', groupId: 'g', key: null }))).toEqual({ key: KEY });
  });

  it.each([
    ['an event without the key', event({ orderId: 1 })],
    ['a key that is not a string', event({ 'idempotency-key': 7 })],
    ['a body that only mentions detail-type', { 'detail-type': 'x', note: 'not an event' }],
    ['an SNS notification with a Number attribute', notification({ 'idempotency-key': { Type: 'Number', Value: '7' } })],
    ['an SNS-like body whose Message is no string', { ...notification({ 'idempotency-key': { Type: 'String', Value: KEY } }), Message: { orderId: 1 } }],
    ['text that is not JSON', '"detail-type" and "Notification", but no JSON'],
  ])('falls back on %s', (_what, body) => {
    const record = sqsRecord(body, { key: null });
    expect(envelopeOf(record.body)).toBeUndefined();
    expect(sqsDefaultKey(record)).toEqual({ key: record.messageId, fallback: 'messageId' });
  });
});

describe('a message in an envelope is hashed by what the envelope wraps', () => {
  it('two puts of one event (new id and time) and two publishes of one message (new MessageId) hash alike', () => {
    const payload = (body: object) => sqsSource.payload(sqsRecord(body) as SQSRecord);
    expect(payload(event({ 'idempotency-key': KEY }, 'e-1'))).toBe(payload({ ...event({ 'idempotency-key': KEY }, 'e-2'), time: '2025-03-01T10:21:00Z' }));
    const attributes = { 'idempotency-key': { Type: 'String', Value: KEY } };
    expect(payload(notification(attributes, 'n-1'))).toBe(payload(notification(attributes, 'n-2')));
    expect(payload(notification(attributes))).toBe('{"orderId":1}');
  });

  it('a body with no envelope key is hashed whole, as before', () => {
    const record = sqsRecord(event({ orderId: 1 }));
    expect(sqsSource.payload(record)).toBe(record.body);
  });
});

describe('the default parse unwraps what the default key reads, key or not', () => {
  it.each([
    ['an SNS notification', notification({})],
    ['an EventBridge event', event({ orderId: 1 })],
  ])('%s gives the message it wraps', (_what, body) => {
    expect(sqsSource.parse(sqsRecord(body))).toEqual({ orderId: 1 });
  });

  it.each([
    ['a body that only mentions detail-type', { 'detail-type': 'x', detail: { orderId: 1 } }],
    ['an SNS-like body whose Message is no string', { ...notification({}), Message: { orderId: 1 } }],
  ])('%s is parsed whole', (_what, body) => {
    expect(sqsSource.parse(sqsRecord(body))).toEqual(body);
  });
});
