import type { Attributes, Context, Link, Span, SpanContext } from '@opentelemetry/api';
import type { Outcome } from '../outcome.js';
import { otel, type Otel } from './otel-api.js';
import type { TraceParent } from './trace-parent.js';

/** The attributes of the kit's spans: the messaging conventions', then the kit's own. */
export const SPAN_ATTRIBUTES = {
  system: 'messaging.system',
  operationType: 'messaging.operation.type',
  operationName: 'messaging.operation.name',
  destination: 'messaging.destination.name',
  messageId: 'messaging.message.id',
  batchCount: 'messaging.batch.message_count',
  consumerGroup: 'messaging.consumer.group.name',
  consumer: 'sqs_inbox.consumer',
  key: 'sqs_inbox.idempotency_key',
  outcome: 'sqs_inbox.outcome',
} as const;

/** The instrumentation scope the kit's spans are made under. */
export const TRACER_NAME = 'sqs-inbox';

/** One record as its span needs it. */
export interface TracedRecord {
  readonly messageId: string;
  readonly destination: string;
  readonly key: string | undefined;
  /** The producer's context the record carries. */
  readonly parent: TraceParent | undefined;
}

/** A record's span: the claim and the effect run inside it, the outcome ends it. */
export interface MessageTrace {
  /** Runs `work` with the span active, so the database work and what it sends are inside it. */
  run<T>(work: () => Promise<T>): Promise<T>;
  /** The trace the span belongs to, for the outcome's log line; undefined when nothing traces. */
  readonly traceId: string | undefined;
  end(outcome: Outcome): void;
}

/** A batch's span and the spans of its records. */
export interface BatchTrace<I> {
  /** The span of one of the batch's items: started at the first call, the same one after. */
  message(item: I): MessageTrace;
  end(): void;
}

const UNTRACED_MESSAGE: MessageTrace = { run: (work) => work(), traceId: undefined, end: () => undefined };
const UNTRACED: BatchTrace<unknown> = { message: () => UNTRACED_MESSAGE, end: () => undefined };

function remoteContext(api: Otel, parent: TraceParent): SpanContext {
  return {
    traceId: parent.traceId,
    spanId: parent.spanId,
    traceFlags: parent.sampled ? api.TraceFlags.SAMPLED : api.TraceFlags.NONE,
    isRemote: true,
    ...(parent.traceState !== undefined ? { traceState: api.createTraceState(parent.traceState) } : {}),
  };
}

/** What a failed span says of the thrown value: its message, or a word for a value that throws when read. */
function describeThrown(value: unknown): string {
  try {
    return value instanceof Error ? value.message : String(value);
  } catch {
    return 'a thrown value that cannot be read';
  }
}

function messageTrace(api: Otel, batchContext: Context, batchSpan: Span, consumer: string, system: string, record: TracedRecord): MessageTrace {
  const producer = record.parent && remoteContext(api, record.parent);
  // The producer's context is the parent, so one trace runs from the first producer to the last
  // effect; the link says so to backends that read links, and the batch span is linked back.
  const parentContext = producer ? api.trace.setSpanContext(api.ROOT_CONTEXT, producer) : batchContext;
  const links: Link[] = producer ? [{ context: producer }, { context: batchSpan.spanContext() }] : [];
  const attributes: Attributes = {
    [SPAN_ATTRIBUTES.system]: system,
    [SPAN_ATTRIBUTES.operationType]: 'process',
    [SPAN_ATTRIBUTES.operationName]: 'process',
    [SPAN_ATTRIBUTES.destination]: record.destination,
    [SPAN_ATTRIBUTES.messageId]: record.messageId,
    [SPAN_ATTRIBUTES.consumerGroup]: consumer,
    [SPAN_ATTRIBUTES.consumer]: consumer,
    ...(record.key !== undefined ? { [SPAN_ATTRIBUTES.key]: record.key } : {}),
  };
  const span = api.trace.getTracer(TRACER_NAME).startSpan(`process ${record.destination}`, { kind: api.SpanKind.CONSUMER, attributes, links }, parentContext);
  const active = api.trace.setSpan(parentContext, span);
  const traceId = span.spanContext().traceId;
  return {
    run: (work) => api.context.with(active, work),
    traceId: api.trace.isSpanContextValid(span.spanContext()) ? traceId : undefined,
    end(outcome) {
      span.setAttribute(SPAN_ATTRIBUTES.outcome, outcome.kind);
      if (outcome.kind === 'failed') {
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: describeThrown(outcome.error) });
        // Whatever user code threw is read here: a value that throws when read leaves the status alone.
        try {
          span.recordException(outcome.error instanceof Error ? outcome.error : describeThrown(outcome.error));
        } catch {
          // The span still ends, with its status.
        }
      }
      span.end();
    },
  };
}

/**
 * Starts a batch's span (kind consumer, `process <destination>`), linked to the contexts its records
 * carry rather than parented by any of them, under whatever span is active (the invocation's, with
 * the ADOT layer); each record then gets its own span from `message`. `describe` reads what a span
 * needs of an item. With no `@opentelemetry/api` installed, or no provider registered (the batch
 * span has no valid context), no more spans are made: every message's is the one do-nothing span.
 *
 * @example
 * ```ts
 * const trace = startBatchTrace('order-worker', 'aws_sqs', prepared, (item) => tracedRecord(item, source));
 * const span = trace.message(prepared[0]);
 * const result = await span.run(() => processRecord(...));
 * span.end(outcome); trace.end();
 * ```
 */
export function startBatchTrace<I>(consumer: string, system: string, items: readonly I[], describe: (item: I) => TracedRecord): BatchTrace<I> {
  const api = otel();
  if (!api) return UNTRACED;
  const described = new Map(items.map((item) => [item, describe(item)]));
  const records = [...described.values()];
  const destinations = new Set(records.map((record) => record.destination));
  const [destination] = destinations;
  const links: Link[] = records.flatMap((record) => (record.parent ? [{ context: remoteContext(api, record.parent) }] : []));
  const attributes: Attributes = {
    [SPAN_ATTRIBUTES.system]: system,
    [SPAN_ATTRIBUTES.operationType]: 'process',
    [SPAN_ATTRIBUTES.operationName]: 'process',
    [SPAN_ATTRIBUTES.batchCount]: records.length,
    [SPAN_ATTRIBUTES.consumerGroup]: consumer,
    [SPAN_ATTRIBUTES.consumer]: consumer,
    ...(destinations.size === 1 && destination !== undefined ? { [SPAN_ATTRIBUTES.destination]: destination } : {}),
  };
  const name = destinations.size === 1 ? `process ${destination}` : 'process';
  const span = api.trace.getTracer(TRACER_NAME).startSpan(name, { kind: api.SpanKind.CONSUMER, attributes, links });
  // With no provider registered the API's span has no valid context: nothing traces, nothing more is made.
  if (!api.trace.isSpanContextValid(span.spanContext())) return UNTRACED;
  const batchContext = api.trace.setSpan(api.context.active(), span);
  // One span an item, however often asked: a batched statement is built in it before its outcome ends it.
  const started = new Map<I, MessageTrace>();
  return {
    message: (item) => {
      const record = described.get(item);
      if (!record) return UNTRACED_MESSAGE;
      const trace = started.get(item) ?? messageTrace(api, batchContext, span, consumer, system, record);
      started.set(item, trace);
      return trace;
    },
    end: () => span.end(),
  };
}
