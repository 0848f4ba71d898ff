import type { SQSRecord } from 'aws-lambda';
import { fromXrayHeader, parseTraceparent, type TraceParent } from './trace-parent.js';

/** The W3C names a message carries its context under: SQS and SNS message attributes, Kafka headers. */
export const TRACE_ATTRIBUTES = { traceparent: 'traceparent', tracestate: 'tracestate' } as const;

/**
 * The producer's context of a message whose headers `header` reads: W3C `traceparent` (with
 * `tracestate`). Undefined when absent or malformed, or when reading a header throws: a record's
 * context is never a reason to fail it.
 *
 * @example
 * ```ts
 * headerContext((name) => kafkaHeader(record, name))
 * ```
 */
export function headerContext(header: (name: string) => string | undefined): TraceParent | undefined {
  try {
    return parseTraceparent(header(TRACE_ATTRIBUTES.traceparent), header(TRACE_ATTRIBUTES.tracestate));
  } catch {
    return undefined;
  }
}

/**
 * The producer's context of an SQS record: the W3C `traceparent` message attribute (what
 * `sendMessages` and the outbox send, and what OpenTelemetry's SQS instrumentation writes), else X-Ray's
 * `AWSTraceHeader` system attribute, which SQS sets from a traced sender and EventBridge from a
 * `TraceHeader`. The attribute wins: it names the producer's own span, the system attribute may
 * name only the sender's X-Ray segment.
 *
 * @example
 * ```ts
 * sqsRecordContext(record)?.traceId // '5759e988bd862e3fe1be46a994272793'
 * ```
 */
export function sqsRecordContext(record: SQSRecord): TraceParent | undefined {
  return headerContext((name) => record.messageAttributes?.[name]?.stringValue)
    ?? fromXrayHeader((record.attributes as Partial<SQSRecord['attributes']> | undefined)?.AWSTraceHeader);
}
