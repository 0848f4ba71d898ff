import { context, trace, type SpanContext } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach } from 'vitest';

/** A real tracer provider with an in-memory exporter, registered globally as the ADOT layer would. */
export interface TestTracing {
  /** The spans ended so far in this test. */
  spans(): ReadableSpan[];
  /** The spans named `name`. */
  named(name: string): ReadableSpan[];
  /** Runs `work` inside a span of the test's own (a producer's, an API handler's) and gives its context. */
  inSpan<T>(name: string, work: () => Promise<T>): Promise<{ result: T; span: SpanContext }>;
}

/** Registers a tracer provider and a context manager for the file, the exporter emptied before each test. */
export function useTracing(): TestTracing {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(provider);
  });
  beforeEach(() => exporter.reset());
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
  });
  return {
    spans: () => exporter.getFinishedSpans(),
    named: (name) => exporter.getFinishedSpans().filter((span) => span.name === name),
    inSpan: (name, work) => trace.getTracer('test').startActiveSpan(name, async (span) => {
      try {
        return { result: await work(), span: span.spanContext() };
      } finally {
        span.end();
      }
    }),
  };
}

/** A W3C traceparent of fresh random ids, sampled. */
export function newTraceparent(): { traceparent: string; traceId: string; spanId: string } {
  const hex = (bytes: number) => [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, '0')).join('');
  const traceId = hex(16);
  const spanId = hex(8);
  return { traceparent: `00-${traceId}-${spanId}-01`, traceId, spanId };
}

/** The record as its producer sent it with a `traceparent` message attribute. */
export function withTraceparent(record: SQSRecord, traceparent: string): SQSRecord {
  return { ...record, messageAttributes: { ...record.messageAttributes, traceparent: { dataType: 'String', stringValue: traceparent, stringListValues: [], binaryListValues: [] } } };
}

/** The record as SQS hands it over from an X-Ray traced sender: the `AWSTraceHeader` system attribute. */
export function withAwsTraceHeader(record: SQSRecord, header: string): SQSRecord {
  return { ...record, attributes: { ...record.attributes, AWSTraceHeader: header } };
}
