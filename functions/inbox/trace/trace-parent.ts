/** A W3C trace context as a message carries it: the producer's trace, span and whether it is sampled. */
export interface TraceParent {
  /** 32 lowercase hex digits. */
  readonly traceId: string;
  /** 16 lowercase hex digits: the producer's span. */
  readonly spanId: string;
  readonly sampled: boolean;
  /** The W3C `tracestate`, passed on as it came. */
  readonly traceState?: string;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-.*)?$/;
const ZERO = /^0+$/;

/**
 * Reads a W3C `traceparent` (`00-<trace id>-<span id>-<flags>`), with its `tracestate` when given;
 * undefined for anything malformed, an all-zero id or the forbidden version `ff`, which a consumer
 * ignores rather than fails on.
 *
 * @example
 * ```ts
 * parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01') // { traceId: '4bf9...', spanId: '00f0...', sampled: true }
 * ```
 */
export function parseTraceparent(value: string | undefined, traceState?: string): TraceParent | undefined {
  const match = value === undefined ? null : TRACEPARENT.exec(value.trim());
  if (!match) return undefined;
  const [, version, traceId, spanId, flags] = match as unknown as [string, string, string, string, string];
  if (version === 'ff' || (version === '00' && value!.trim().length !== 55) || ZERO.test(traceId) || ZERO.test(spanId)) return undefined;
  return { traceId, spanId, sampled: (Number.parseInt(flags, 16) & 1) === 1, ...(traceState ? { traceState } : {}) };
}

/**
 * Writes a context as a W3C `traceparent`.
 *
 * @example
 * ```ts
 * formatTraceparent({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', sampled: true }) // '00-4bf9...-00f0...-01'
 * ```
 */
export function formatTraceparent(parent: TraceParent): string {
  return `00-${parent.traceId}-${parent.spanId}-${parent.sampled ? '01' : '00'}`;
}

/**
 * Reads X-Ray's trace header (`Root=1-<8 hex epoch>-<24 hex>;Parent=<16 hex>;Sampled=1`, as SQS sets
 * it in the `AWSTraceHeader` system attribute) as a W3C context: the root's two hex parts make the
 * 32-digit trace id, `Parent` the span id. Undefined without a root and a parent, which a header
 * from a segment not yet sent lacks.
 *
 * @example
 * ```ts
 * fromXrayHeader('Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1')
 * // { traceId: '5759e988bd862e3fe1be46a994272793', spanId: '53995c3f42cd8ad8', sampled: true }
 * ```
 */
export function fromXrayHeader(header: string | undefined): TraceParent | undefined {
  if (header === undefined) return undefined;
  const fields = new Map(header.split(';').map((part) => {
    const at = part.indexOf('=');
    return [part.slice(0, at).trim(), part.slice(at + 1).trim()] as const;
  }));
  const root = /^1-([0-9a-f]{8})-([0-9a-f]{24})$/.exec(fields.get('Root') ?? '');
  const parent = fields.get('Parent') ?? '';
  if (!root || !/^[0-9a-f]{16}$/.test(parent)) return undefined;
  return parseTraceparent(`00-${root[1]}${root[2]}-${parent}-${fields.get('Sampled') === '1' ? '01' : '00'}`);
}

/**
 * Writes a context as X-Ray's trace header, what EventBridge takes as an entry's `TraceHeader`.
 *
 * @example
 * ```ts
 * toXrayHeader(parent) // 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1'
 * ```
 */
export function toXrayHeader(parent: TraceParent): string {
  return `Root=1-${parent.traceId.slice(0, 8)}-${parent.traceId.slice(8)};Parent=${parent.spanId};Sampled=${parent.sampled ? '1' : '0'}`;
}
