import { describe, expect, it } from 'vitest';
import { keyOf } from '../../functions/inbox/pipeline/message-key.js';
import { sqsDefaultKey } from '../../functions/inbox/sqs/sqs-source.js';
import { sqsRecord } from '../support/sqs-events.js';

describe('the default SQS idempotency key', () => {
  it('is the idempotency-key attribute when present, and no fallback', () => {
    expect(sqsDefaultKey(sqsRecord({}, { key: 'k1', deduplicationId: 'd1', groupId: 'g' }))).toEqual({ key: 'k1' });
  });
  it('else the MessageDeduplicationId, marked as a fallback a redrive changes', () => {
    expect(sqsDefaultKey(sqsRecord({}, { deduplicationId: 'd1', groupId: 'g', key: null }))).toEqual({ key: 'd1', fallback: 'MessageDeduplicationId' });
  });
  it('else the messageId, marked as a fallback', () => {
    expect(sqsDefaultKey(sqsRecord({}, { messageId: 'm1', key: null }))).toEqual({ key: 'm1', fallback: 'messageId' });
  });
});

describe('a key must be a non-empty string of at most 512 characters', () => {
  const record = sqsRecord({});
  it.each([
    ['', /empty/],
    ['x'.repeat(513), /513 characters, over the 512 allowed/],
  ])('%j is refused', (key, message) => {
    const result = keyOf(record, () => key, sqsDefaultKey);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error.message).toMatch(message);
  });
  it('a throwing key function is refused with what it threw', () => {
    const result = keyOf(record, () => { throw new Error('boom'); }, sqsDefaultKey);
    expect(!result.ok && result.error.message).toBe('The message has no usable idempotency key: the key function threw Error: boom.');
  });
  it('a key function that throws a revoked Proxy is refused too, not thrown through', () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const result = keyOf(record, () => { throw proxy; }, sqsDefaultKey);
    expect(!result.ok && result.error.message).toBe('The message has no usable idempotency key: the key function threw a thrown value whose text cannot be read.');
  });
  it('512 characters are accepted, and a key of the user is never a fallback', () => {
    expect(keyOf(record, () => 'x'.repeat(512), sqsDefaultKey)).toEqual({ ok: true, key: 'x'.repeat(512) });
  });
  it('without a key function the default is checked too, keeping its fallback mark', () => {
    expect(keyOf(sqsRecord({}, { messageId: 'm1', key: null }), undefined, sqsDefaultKey)).toEqual({ ok: true, key: 'm1', fallback: 'messageId' });
  });
});
