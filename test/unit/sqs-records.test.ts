import { describe, expect, it } from 'vitest';
import { InvalidEventError } from '../../functions/inbox/index.js';
import { messageGroupOf, sqsRecords } from '../../functions/inbox/sqs/sqs-records.js';
import { sqsEvent, sqsRecord } from '../support/sqs-events.js';

describe('only an SQS batch is accepted', () => {
  it('returns the records of a well-formed batch', () => {
    const record = sqsRecord({ a: 1 });
    expect(sqsRecords(sqsEvent(record))).toEqual([record]);
  });
  it.each([
    ['undefined', undefined, /got undefined/],
    ['a string', 'x', /got string/],
    ['an API Gateway event', { httpMethod: 'GET', body: '' }, /no Records array/],
    ['a record that is not an object', { Records: [1] }, /record 0 is not an object/],
    ['a record without body', { Records: [{ messageId: 'm' }] }, /record 0 \(m\) has no body/],
    // [record, , record]: forEach and map skip the hole.
    ['a Records array with a hole', { Records: Object.assign(new Array(3), { 0: sqsRecord({ a: 1 }), 2: sqsRecord({ a: 2 }) }) }, /record 1 is not an object/],
  ])('%s is refused', (_label, event, message) => {
    expect(() => sqsRecords(event)).toThrow(InvalidEventError);
    expect(() => sqsRecords(event)).toThrow(message);
  });
});

describe('the FIFO group of a record', () => {
  it('is its MessageGroupId', () => {
    expect(messageGroupOf(sqsRecord({}, { groupId: 'g1' }))).toBe('g1');
  });
  it('is undefined on a standard queue', () => {
    expect(messageGroupOf(sqsRecord({}))).toBeUndefined();
  });
});
