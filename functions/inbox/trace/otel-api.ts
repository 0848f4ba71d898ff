import type * as OtelApi from '@opentelemetry/api';

/** `@opentelemetry/api`, as the kit uses it. */
export type Otel = typeof OtelApi;

// undefined: not looked for yet; null: not installed.
let found: Otel | null | undefined;
let looking: Promise<Otel | null> | undefined;

/**
 * Loads `@opentelemetry/api`, the kit's optional peer, once per process: where it is not installed
 * the kit traces nothing and asks no more. Only the API is loaded, never an SDK: the application
 * (the ADOT layer, its own setup) registers the provider, and with none every span is a no-op.
 *
 * @example
 * ```ts
 * await loadOtel();
 * otel()?.trace.getActiveSpan();
 * ```
 */
export function loadOtel(): Promise<Otel | null> {
  if (found !== undefined) return Promise.resolve(found);
  looking ??= import('@opentelemetry/api').then(
    (api) => (found = api),
    () => (found = null),
  );
  return looking;
}

/**
 * The API once `loadOtel` has found it, else undefined: for code that runs inside a batch or a
 * send, which loaded it first.
 *
 * @example
 * ```ts
 * const span = otel()?.trace.getActiveSpan();
 * ```
 */
export function otel(): Otel | undefined {
  return found ?? undefined;
}
