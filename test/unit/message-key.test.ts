import { describe, expect, it } from 'vitest';
import { defaultKey, keyOf } from '../../functions/inbox/message-key.js';
import { sqsRecord } from '../support/sqs-events.js';

describe('the default idempotency key', () => {
  it('is the idempotency-key attribute when present', () => {
    expect(defaultKey(sqsRecord({}, { key: 'k1', deduplicationId: 'd1', groupId: 'g' }))).toBe('k1');
  });
  it('else the MessageDeduplicationId', () => {
    expect(defaultKey(sqsRecord({}, { deduplicationId: 'd1', groupId: 'g' }))).toBe('d1');
  });
  it('else the messageId', () => {
    expect(defaultKey(sqsRecord({}, { messageId: 'm1' }))).toBe('m1');
  });
});

describe('a key must be a non-empty string of at most 512 characters', () => {
  const record = sqsRecord({});
  it.each([
    ['', /empty/],
    ['x'.repeat(513), /513 characters, over the 512 allowed/],
  ])('%j is refused', (key, message) => {
    const result = keyOf(record, () => key);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error.message).toMatch(message);
  });
  it('a throwing key function is refused with its message', () => {
    const result = keyOf(record, () => { throw new Error('boom'); });
    expect(!result.ok && result.error.message).toMatch(/threw: boom/);
  });
  it('512 characters are accepted', () => {
    expect(keyOf(record, () => 'x'.repeat(512))).toEqual({ ok: true, key: 'x'.repeat(512) });
  });
});
