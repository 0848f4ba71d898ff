import { describe, expect, it } from 'vitest';
import { headerContext, sqsRecordContext } from '../../functions/inbox/trace/record-context.js';
import { formatTraceparent, fromXrayHeader, parseTraceparent, toXrayHeader } from '../../functions/inbox/trace/trace-parent.js';
import { traceAttributes } from '../../functions/inbox/trace/outgoing-context.js';
import { sqsRecord } from '../support/sqs-events.js';
import { withAwsTraceHeader, withTraceparent } from '../support/tracing.js';

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const XRAY = 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1';

describe('a W3C traceparent is read and written as the spec gives it', () => {
  it('reads the trace id, the span id and the sampled flag, and writes them back unchanged', () => {
    const parent = parseTraceparent(TRACEPARENT, 'vendor=abc');
    expect(parent).toEqual({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', sampled: true, traceState: 'vendor=abc' });
    expect(formatTraceparent(parent!)).toBe(TRACEPARENT);
    expect(parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00')?.sampled).toBe(false);
  });

  it.each([
    ['no value', undefined],
    ['an all-zero trace id', '00-00000000000000000000000000000000-00f067aa0ba902b7-01'],
    ['an all-zero span id', '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01'],
    ['the forbidden version ff', 'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
    ['upper-case hex', '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01'],
    ['a short trace id', '00-4bf92f3577b34da6a3ce929d0e0e47-00f067aa0ba902b7-01'],
    ['trailing fields on version 00', `${TRACEPARENT}-extra`],
  ])('ignores %s', (_, value) => {
    expect(parseTraceparent(value)).toBeUndefined();
  });
});

describe('X-Ray\'s trace header converts to a W3C context and back', () => {
  it('joins the root\'s epoch and random parts into the trace id, the parent into the span id', () => {
    expect(fromXrayHeader(XRAY)).toEqual({ traceId: '5759e988bd862e3fe1be46a994272793', spanId: '53995c3f42cd8ad8', sampled: true });
    expect(toXrayHeader(fromXrayHeader(XRAY)!)).toBe(XRAY);
  });

  it('reads Sampled=0 or no Sampled as not sampled, and the fields in any order', () => {
    expect(fromXrayHeader('Parent=53995c3f42cd8ad8;Root=1-5759e988-bd862e3fe1be46a994272793')?.sampled).toBe(false);
    expect(fromXrayHeader('Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=0')?.sampled).toBe(false);
  });

  it('ignores a header without a parent, or with a root of another version', () => {
    expect(fromXrayHeader('Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1')).toBeUndefined();
    expect(fromXrayHeader('Root=2-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8')).toBeUndefined();
  });
});

describe('an SQS record\'s context: the traceparent attribute, else AWSTraceHeader', () => {
  it('reads the traceparent message attribute', () => {
    expect(sqsRecordContext(withTraceparent(sqsRecord({ a: 1 }), TRACEPARENT))?.spanId).toBe('00f067aa0ba902b7');
  });

  it('reads the AWSTraceHeader system attribute when there is no traceparent', () => {
    expect(sqsRecordContext(withAwsTraceHeader(sqsRecord({ a: 1 }), XRAY))?.traceId).toBe('5759e988bd862e3fe1be46a994272793');
  });

  it('prefers the traceparent attribute, which names the producer\'s own span', () => {
    const record = withTraceparent(withAwsTraceHeader(sqsRecord({ a: 1 }), XRAY), TRACEPARENT);
    expect(sqsRecordContext(record)?.traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
  });

  it('has none when the record carries none', () => {
    expect(sqsRecordContext(sqsRecord({ a: 1 }))).toBeUndefined();
  });

  it('gives none rather than failing when a header cannot be read', () => {
    expect(headerContext(() => { throw new TypeError('header traceparent is not UTF-8 text'); })).toBeUndefined();
  });
});

describe('traceparent goes on only while there is room for it', () => {
  it('adds it beside the sender\'s attributes', () => {
    expect(traceAttributes(['idempotency-key'], 10, TRACEPARENT)).toEqual({ traceparent: TRACEPARENT });
  });

  it('gives way when the message already has ten attributes', () => {
    expect(traceAttributes(Array.from({ length: 10 }, (_, i) => `a${i}`), 10, TRACEPARENT)).toEqual({});
  });

  it('leaves a traceparent the sender set', () => {
    expect(traceAttributes(['traceparent', 'idempotency-key'], 10, TRACEPARENT)).toEqual({});
  });

  it('adds nothing without a context', () => {
    expect(traceAttributes(['idempotency-key'], 10, undefined)).toEqual({});
  });
});
