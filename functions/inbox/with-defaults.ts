/** The options as given, with each field that was left out or passed as `undefined` taken from the defaults. */
export type WithDefaults<D extends object, G extends object> = Omit<G, keyof D> & {
  [K in keyof D]-?: K extends keyof G ? Exclude<G[K], undefined> | D[K] : D[K];
};

/**
 * The project's one way of merging options with their defaults. A spread (`{ ...defaults, ...given }`)
 * lets a field passed as `undefined` (plain JavaScript, or TypeScript without
 * `exactOptionalPropertyTypes`) replace its default; here only a defined value does.
 *
 * @example
 * ```ts
 * withDefaults({ marginMs: 10_000, waitMs: 5_000 }, { waitMs: undefined }) // { marginMs: 10000, waitMs: 5000 }
 * ```
 */
export function withDefaults<D extends object, G extends object>(defaults: D, given: G | undefined): WithDefaults<D, G> {
  const merged: Record<string, unknown> = { ...(defaults as Record<string, unknown>) };
  for (const [name, value] of Object.entries(given ?? {})) {
    if (value !== undefined) merged[name] = value;
  }
  return merged as WithDefaults<D, G>;
}
