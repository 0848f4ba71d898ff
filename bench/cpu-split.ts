import { Session } from 'node:inspector/promises';
import type { Profiler } from 'node:inspector';

/** Where a sample of the worker's CPU profile was spent. */
export const CPU_PARTS = ['kit', 'sdk', 'node', 'v8', 'other'] as const;
export type CpuPart = (typeof CPU_PARTS)[number];

/** What each part is, for a table's legend. */
export const CPU_PART_LEGEND: Readonly<Record<CpuPart, string>> = {
  kit: 'functions/inbox/** (pipeline, claim, sql, the Data API driver) and the builtins and node: calls it makes itself',
  sdk: 'node_modules/@aws-sdk, @smithy, @aws-crypto (the RDS Data client: middleware, SigV4, serde)',
  node: 'node: internals under the SDK and the event loop (HTTP client, sockets, SigV4 hashing, promise jobs)',
  v8: 'V8 with no JavaScript caller (garbage collection, compilation)',
  other: 'the benchmark itself, tsx and anything else',
};

/** The milliseconds of self time a profile spent in each part. */
export type CpuSplit = Readonly<Record<CpuPart, number>>;

function partOfUrl(url: string): CpuPart | undefined {
  if (url === '') return undefined;
  if (url.includes('/functions/inbox/')) return 'kit';
  if (/\/node_modules\/(@aws-sdk|@smithy|@aws-crypto)\//.test(url)) return 'sdk';
  if (url.startsWith('node:')) return 'node';
  return 'other';
}

/**
 * Self time by part. A sample goes to the file of its function; a function without one (a V8
 * builtin such as JSON.parse, a native binding) goes with the nearest caller that has one; and a
 * node: function called from the kit (its payload hash, its timers) goes to the kit, so the kit is
 * charged for all the work it asks for itself. node: work under the SDK (the HTTP request, SigV4's
 * hashing) and under the event loop (sockets, the HTTP parser, promise jobs) stays `node`. Samples
 * with no caller in any file (GC, the compiler) are `v8`; idle samples are left out.
 *
 * @example
 * ```ts
 * splitProfile(profile) // { kit: 120.5, sdk: 610.2, node: 380.9, v8: 90.1, other: 12.3 }
 * ```
 */
export function splitProfile(profile: Profiler.Profile): CpuSplit {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  // The part of the nearest frame, this one or a caller, in a file outside node: (undefined: none).
  const callers = new Map<number, CpuPart | undefined>();
  const callerOf = (id: number | undefined): CpuPart | undefined => {
    if (id === undefined) return undefined;
    if (callers.has(id)) return callers.get(id);
    const part = partOfUrl(nodes.get(id)!.callFrame.url);
    const found = part !== undefined && part !== 'node' ? part : callerOf(parents.get(id));
    callers.set(id, found);
    return found;
  };
  const parts = new Map<number, CpuPart | 'idle'>();
  const partOf = (id: number): CpuPart | 'idle' => {
    const known = parts.get(id);
    if (known !== undefined) return known;
    const frame = nodes.get(id)!.callFrame;
    const parent = parents.get(id);
    let part: CpuPart | 'idle';
    if (frame.functionName === '(idle)') part = 'idle';
    else if (partOfUrl(frame.url) === 'node') part = callerOf(parent) === 'kit' ? 'kit' : 'node';
    else part = partOfUrl(frame.url) ?? (parent === undefined ? 'v8' : partOf(parent));
    parts.set(id, part);
    return part;
  };
  const split: Record<CpuPart, number> = { kit: 0, sdk: 0, node: 0, v8: 0, other: 0 };
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  // Each delta is the time up to its sample: it belongs to the sample before it.
  for (let i = 0; i + 1 < samples.length; i += 1) {
    const part = partOf(samples[i]!);
    if (part !== 'idle') split[part] += (deltas[i + 1] ?? 0) / 1000;
  }
  return split;
}

/**
 * Runs `work` under V8's sampling profiler in this process (the inspector's Profiler domain, as
 * `node --cpu-prof` does) and returns its result with the profile's split by part.
 *
 * @example
 * ```ts
 * const { split } = await profiled(() => runMessages(1000));
 * ```
 */
export async function profiled<T>(work: () => Promise<T>, intervalUs = 250): Promise<{ result: T; split: CpuSplit; profile: Profiler.Profile }> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: intervalUs });
    await session.post('Profiler.start');
    const result = await work();
    const { profile } = await session.post('Profiler.stop');
    return { result, split: splitProfile(profile), profile };
  } finally {
    session.disconnect();
  }
}
