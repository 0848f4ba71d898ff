import { describe, expect, it } from 'vitest';
import { kafkaBatchResult, type KafkaEvent } from '../../local/kafka/index.js';
import { itemIdentifier, kafkaEvent, kafkaFailures, kafkaRecord } from '../support/kafka-events.js';

const batch = (): KafkaEvent => kafkaEvent([
  kafkaRecord('a', { partition: 0, offset: 10 }),
  kafkaRecord('b', { partition: 0, offset: 11 }),
  kafkaRecord('c', { partition: 0, offset: 12 }),
  kafkaRecord('d', { partition: 1, offset: 40 }),
]);
const records = (event: KafkaEvent) => Object.values(event.records).flat();
const returned = (value: unknown) => ({ kind: 'returned' as const, value });

describe('a thrown error or a timeout fails the whole batch', () => {
  it('fails on a throw, with the error, and on a timeout', () => {
    const error = new TypeError('boom');
    expect(kafkaBatchResult({ kind: 'threw', error }, batch(), true)).toEqual({ outcome: 'failed', reason: 'error', detail: 'TypeError: boom', error });
    expect(kafkaBatchResult({ kind: 'timed-out' }, batch(), true)).toEqual({ outcome: 'failed', reason: 'timeout', detail: 'Task timed out' });
  });
});

describe('an empty answer is complete success', () => {
  it.each([
    ['nothing', undefined],
    ['null', null],
    ['{}', {}],
    ['an empty list', { batchItemFailures: [] }],
    ['a null list', { batchItemFailures: null }],
  ])('succeeds for %s', (_case, value) => {
    expect(kafkaBatchResult(returned(value), batch(), true)).toEqual({ outcome: 'succeeded' });
  });

  it('ignores the answer without ReportBatchItemFailures', () => {
    const event = batch();
    expect(kafkaBatchResult(returned(kafkaFailures(records(event)[0]!)), event, false)).toEqual({ outcome: 'succeeded' });
    expect(kafkaBatchResult(returned('not even an object'), event, false)).toEqual({ outcome: 'succeeded' });
  });
});

describe('named failures resume each partition from its lowest failed offset', () => {
  it('keeps the lowest offset per partition, whatever the order', () => {
    const event = batch();
    const [, b, c, d] = records(event);
    const result = kafkaBatchResult(returned(kafkaFailures(c!, b!, d!)), event, true);
    expect(result).toEqual({ outcome: 'partial', resumeAt: new Map([['orders-0', 11], ['orders-1', 40]]) });
  });
});

describe('an identifier Lambda cannot use fails the whole batch', () => {
  const event = batch();
  it.each([
    ['an offset not in the batch', { batchItemFailures: [{ itemIdentifier: { partition: 'orders-0', offset: 13 } }] }],
    ['a partition not in the batch', { batchItemFailures: [{ itemIdentifier: { partition: 'orders-2', offset: 10 } }] }],
    ['the partition as a bare number', { batchItemFailures: [{ itemIdentifier: { partition: 0, offset: 10 } }] }],
    ['the offset as a string', { batchItemFailures: [{ itemIdentifier: { partition: 'orders-0', offset: '10' } }] }],
    ['a fractional offset', { batchItemFailures: [{ itemIdentifier: { partition: 'orders-0', offset: 10.5 } }] }],
    ['a null offset', { batchItemFailures: [{ itemIdentifier: { partition: 'orders-0', offset: null } }] }],
    ['an SQS-style string identifier', { batchItemFailures: [{ itemIdentifier: 'orders-0:10' }] }],
    ['a missing identifier', { batchItemFailures: [{ itemIdentifer: itemIdentifier(records(event)[0]!) }] }],
    ['a valid failure beside an invalid one', { batchItemFailures: [{ itemIdentifier: { partition: 'orders-0', offset: 10 } }, { itemIdentifier: {} }] }],
    ['batchItemFailures that is not a list', { batchItemFailures: { itemIdentifier: { partition: 'orders-0', offset: 10 } } }],
    ['a response that is not an object', 'done'],
    ['a response that is a list', [{ itemIdentifier: { partition: 'orders-0', offset: 10 } }]],
  ])('fails for %s', (_case, value) => {
    expect(kafkaBatchResult(returned(value), event, true)).toMatchObject({ outcome: 'failed', reason: 'invalid-response' });
  });

  it('fails for a response that cannot be JSON', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(kafkaBatchResult(returned(cyclic), batch(), true)).toMatchObject({ outcome: 'failed', reason: 'invalid-response', detail: expect.stringMatching(/not JSON/) });
  });
});
