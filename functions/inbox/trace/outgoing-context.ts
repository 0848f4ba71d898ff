import { otel } from './otel-api.js';
import { TRACE_ATTRIBUTES } from './record-context.js';
import { formatTraceparent, type TraceParent } from './trace-parent.js';

const TRACEPARENT = TRACE_ATTRIBUTES.traceparent;

/**
 * The context of the active span as a message carries it on, or undefined with no API, no provider
 * or no valid span (a no-op tracer's spans are invalid): a message then goes without one.
 *
 * @example
 * ```ts
 * activeContext() // { traceId: '4bf9...', spanId: '00f0...', sampled: true }
 * ```
 */
export function activeContext(): TraceParent | undefined {
  const api = otel();
  const span = api?.trace.getActiveSpan()?.spanContext();
  if (!api || !span || !api.trace.isSpanContextValid(span)) return undefined;
  const traceState = span.traceState?.serialize();
  return { traceId: span.traceId, spanId: span.spanId, sampled: (span.traceFlags & api.TraceFlags.SAMPLED) === api.TraceFlags.SAMPLED, ...(traceState ? { traceState } : {}) };
}

/**
 * The active span's context as a W3C `traceparent`, or undefined (see `activeContext`).
 *
 * @example
 * ```ts
 * activeTraceparent() // '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'
 * ```
 */
export function activeTraceparent(): string | undefined {
  const active = activeContext();
  return active && formatTraceparent(active);
}

/**
 * The attributes that carry `traceparent` (W3C) on, as string values: the given one, else the active
 * span's. Empty when there is no context, when the message already names its own `traceparent`
 * (the sender's choice stands), or when adding them would pass `room` attributes: the trace gives way
 * to the sender's attributes, never the other way round.
 *
 * @example
 * ```ts
 * traceAttributes(Object.keys(attributes), 10) // { traceparent: '00-4bf9...-00f0...-01' }
 * ```
 */
export function traceAttributes(names: readonly string[], room: number, traceparent: string | undefined = activeTraceparent()): Record<string, string> {
  if (traceparent === undefined || names.includes(TRACEPARENT) || names.length + 1 > room) return {};
  return { [TRACEPARENT]: traceparent };
}
