import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Publisher } from '../functions/inbox/outbox/index.js';
import type { OutgoingMessage } from '../functions/inbox/producer/index.js';

/** The second hop's trace check: every order's notice must belong to the trace its producer started. */
export interface TraceCheck {
  /** The workload's messages, each sent from a producer span of its own order (as an API would place it). */
  traced(messages: readonly OutgoingMessage[]): OutgoingMessage[];
  /** Shipped orders (by key) whose trace holds no span of the notice worker processing their notice. */
  broken(shippedKeys: readonly string[], noticeDestination: string): number;
  stop(): Promise<void>;
}

/**
 * Registers a tracer provider with an in-memory exporter for the run, as the ADOT layer would in
 * Lambda, and keeps the trace each order's producer span started.
 *
 * @example
 * ```ts
 * const traces = startTraceCheck();
 * await sendMessages(client, queueUrl, traces.traced(workload.messages));
 * traces.broken(shippedKeys, 'shipment-notices.fifo') // 0
 * ```
 */
export function startTraceCheck(): TraceCheck {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  const traceOfKey = new Map<string, string>();
  return {
    traced(messages) {
      return messages.map((message) => {
        const span = trace.getTracer('demo').startSpan('place order', {}, context.active());
        const { traceId, spanId } = span.spanContext();
        span.end();
        traceOfKey.set(message.key!, traceId);
        return { ...message, attributes: { ...message.attributes, traceparent: { DataType: 'String', StringValue: `00-${traceId}-${spanId}-01` } } };
      });
    },
    broken(shippedKeys, noticeDestination) {
      const noticeTraces = new Set(exporter.getFinishedSpans()
        .filter((span) => span.name === `process ${noticeDestination}` && span.attributes['messaging.message.id'] !== undefined)
        .map((span) => span.spanContext().traceId));
      return shippedKeys.filter((key) => !noticeTraces.has(traceOfKey.get(key) ?? '')).length;
    },
    async stop() {
      await provider.shutdown();
      trace.disable();
      context.disable();
    },
  };
}

/**
 * The sabotage that proves the check can fail: a target that sends its rows without their trace context.
 *
 * @example
 * ```ts
 * const target = withoutTraceContext(sqsTarget({ queueUrl, client }));
 * ```
 */
export function withoutTraceContext(publisher: Publisher): Publisher {
  return { ...publisher, publish: (entries, options) => publisher.publish(entries.map((entry) => ({ ...entry, traceparent: undefined })), options) };
}
