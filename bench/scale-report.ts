import { CPU_PART_LEGEND, CPU_PARTS, type CpuSplit } from './cpu-split.js';
import type { Mode, ScaleFigures } from './scale-run.js';

/** A cost per message that must stay flat as the work grows. */
interface PerMessage {
  readonly name: string;
  readonly unit: string;
  readonly digits: number;
  readonly of: (run: ScaleFigures) => number;
}

export const PER_MESSAGE: readonly PerMessage[] = [
  { name: 'wall time', unit: 'ms/msg', digits: 3, of: (run) => run.wallMs / run.messages },
  { name: 'worker CPU', unit: 'ms/msg', digits: 3, of: (run) => run.workerCpuMs / run.messages },
  { name: 'Data API calls', unit: 'calls/msg', digits: 2, of: (run) => run.dataApiCalls / run.messages },
  { name: 'table size', unit: 'B/msg', digits: 1, of: (run) => run.tableBytes / run.messages },
  { name: 'index size', unit: 'B/msg', digits: 1, of: (run) => run.indexBytes / run.messages },
  { name: 'cleanup time', unit: 'us/row', digits: 1, of: (run) => (run.cleanup.ms * 1000) / Math.max(1, run.cleanup.deleted) },
];

/** One ratio of a per-message cost between a size and the smallest one. */
export interface Ratio {
  readonly mode: Mode;
  readonly cost: string;
  readonly messages: number;
  readonly base: number;
  readonly ratio: number;
}

const pad = (text: string, width: number) => text.padStart(width);

/** One mode and size measured in one or more rounds. */
export type SizeFigures = ScaleFigures & { readonly rounds: number };

/**
 * Rounds of one mode and size as one: the median of each measured figure (the lower one of an even
 * count), the sums of what went wrong, and the lowest and highest load seen.
 *
 * @example
 * ```ts
 * medianOf([run1, run2, run3]).workerCpuMs // the middle of the three
 * ```
 */
export function medianOf(rounds: readonly ScaleFigures[]): SizeFigures {
  const median = (of: (run: ScaleFigures) => number) => rounds.map(of).sort((a, b) => a - b)[Math.floor((rounds.length - 1) / 2)]!;
  const sum = (of: (run: ScaleFigures) => number) => rounds.reduce((total, run) => total + of(run), 0);
  const first = rounds[0]!;
  return {
    mode: first.mode, messages: first.messages, rounds: rounds.length,
    wallMs: median((run) => run.wallMs), workerCpuMs: median((run) => run.workerCpuMs), emulatorCpuMs: median((run) => run.emulatorCpuMs),
    dataApiCalls: median((run) => run.dataApiCalls), dataApiErrors: sum((run) => run.dataApiErrors),
    invocations: median((run) => run.invocations), redeliveries: sum((run) => run.redeliveries), parked: sum((run) => run.parked),
    inboxRows: median((run) => run.inboxRows), shipped: median((run) => run.shipped),
    tableBytes: median((run) => run.tableBytes), rowBytes: median((run) => run.rowBytes), indexBytes: median((run) => run.indexBytes),
    cleanup: { ms: median((run) => run.cleanup.ms), deleted: median((run) => run.cleanup.deleted), batches: median((run) => run.cleanup.batches) },
    load: [Math.min(...rounds.map((run) => run.load[0])), Math.max(...rounds.map((run) => run.load[1]))],
  };
}

/** The table of every run: one line per mode and size. */
export function figureLines(runs: readonly SizeFigures[]): string[] {
  const head = ['mode'.padEnd(11), 'messages', 'rounds', 'wall s', 'msg/s', 'worker CPU ms/msg', 'emulator CPU ms/msg', 'calls/msg', 'table B/msg', 'table fill', 'index B/msg',
    'cleanup s', 'cleanup us/row', 'redelivered', 'parked', 'load 1m'];
  const lines = [head.join('  ')];
  for (const run of runs) {
    const cells = [
      run.mode.padEnd(11),
      String(run.messages), String(run.rounds), (run.wallMs / 1000).toFixed(1), (run.messages / (run.wallMs / 1000)).toFixed(0),
      (run.workerCpuMs / run.messages).toFixed(3), (run.emulatorCpuMs / run.messages).toFixed(3), (run.dataApiCalls / run.messages).toFixed(2),
      (run.tableBytes / run.messages).toFixed(1), `${((100 * run.rowBytes) / run.tableBytes).toFixed(0)}%`, (run.indexBytes / run.messages).toFixed(1),
      (run.cleanup.ms / 1000).toFixed(2), PER_MESSAGE[5]!.of(run).toFixed(1),
      String(run.redeliveries), String(run.parked), `${run.load[0].toFixed(1)}-${run.load[1].toFixed(1)}`,
    ];
    lines.push(cells.map((cell, i) => (i === 0 ? cell : pad(cell, head[i]!.length))).join('  '));
  }
  return lines;
}

/** Each per-message cost of each larger size over the smallest size of its mode. */
export function ratiosOf(runs: readonly ScaleFigures[]): Ratio[] {
  const ratios: Ratio[] = [];
  for (const mode of new Set(runs.map((run) => run.mode))) {
    const ofMode = runs.filter((run) => run.mode === mode).sort((a, b) => a.messages - b.messages);
    const [smallest, ...larger] = ofMode;
    if (smallest === undefined) continue;
    for (const cost of PER_MESSAGE) {
      for (const run of larger) ratios.push({ mode, cost: cost.name, messages: run.messages, base: smallest.messages, ratio: cost.of(run) / cost.of(smallest) });
    }
  }
  return ratios;
}

/** The ratios as a table, one line per mode and cost, each marked when it grew or fell past the bound. */
export function ratioLines(ratios: readonly Ratio[], bound: number): string[] {
  const lines: string[] = [];
  const keys = [...new Set(ratios.map((ratio) => `${ratio.mode}\u0000${ratio.cost}`))];
  for (const key of keys) {
    const [mode, cost] = key.split('\u0000') as [Mode, string];
    const row = ratios.filter((ratio) => ratio.mode === mode && ratio.cost === cost);
    const cells = row.map((ratio) => {
      const mark = ratio.ratio > 1 + bound ? ' GREW PAST BOUND' : ratio.ratio < 1 - bound ? ' (fell)' : '';
      return `${ratio.messages}/${ratio.base} ${ratio.ratio.toFixed(2)}x${mark}`;
    });
    lines.push(`${mode.padEnd(11)} ${cost.padEnd(15)} ${cells.join('   ')}`);
  }
  return lines;
}

/** The profile's split of the worker's CPU by part, per message and per Data API call. */
export function splitLines(mode: Mode, messages: number, callsPerMessage: number, split: CpuSplit): string[] {
  const total = CPU_PARTS.reduce((sum, part) => sum + split[part], 0);
  return CPU_PARTS.map((part) => {
    const perMessage = split[part] / messages;
    return `${mode.padEnd(11)} ${part.padEnd(6)} ${perMessage.toFixed(3).padStart(7)} ms/msg ${(perMessage / callsPerMessage).toFixed(3).padStart(7)} ms/call ${(100 * split[part] / total).toFixed(0).padStart(4)}%   ${CPU_PART_LEGEND[part]}`;
  });
}

const KIB = 1024;
// Each B-tree index has a metapage and a root page however few rows it holds.
const FIXED_INDEX_BYTES = 2 * 2 * 8 * KIB;

/** What explains one cost's ratio, read from the runs' own figures. */
const WHY: Readonly<Record<string, (small: SizeFigures, large: SizeFigures) => string>> = {
  'wall time': (small, large) => `wall time follows the machine: load ${small.load[0].toFixed(1)}-${small.load[1].toFixed(1)} at ${small.messages}, `
    + `${large.load[0].toFixed(1)}-${large.load[1].toFixed(1)} at ${large.messages}; the worker's CPU per message is the figure the kit controls`,
  'worker CPU': (small, large) => `the worker's CPU follows the machine's load too (${small.load[1].toFixed(1)} vs ${large.load[1].toFixed(1)}): a loaded CPU runs the same code slower`,
  'Data API calls': (small, large) => `calls per message are fixed by the mode unless messages are retried: ${small.redeliveries} and ${large.redeliveries} redeliveries, `
    + `${small.dataApiErrors} and ${large.dataApiErrors} Data API errors`,
  'table size': (small, large) => `the rows themselves take ${(small.rowBytes / small.messages).toFixed(0)} and ${(large.rowBytes / large.messages).toFixed(0)} B/msg `
    + `(table fill ${((100 * small.rowBytes) / small.tableBytes).toFixed(0)}% at ${small.messages}, ${((100 * large.rowBytes) / large.tableBytes).toFixed(0)}% at ${large.messages}): `
    + 'the rest is free space in the pages the concurrent sessions were filling (each inserts into a page of its own, and PostgreSQL extends a contended table by several pages at once), about the same amount at any size, so it weighs per message on a small table',
  'index size': (small) => `the two indexes' fixed pages (a metapage and a root each, ${FIXED_INDEX_BYTES / KIB} KiB) alone are ${(FIXED_INDEX_BYTES / small.messages).toFixed(1)} B/msg at ${small.messages}`,
  'cleanup time': (small, large) => `${small.cleanup.batches} DELETE calls for ${small.cleanup.deleted} rows at ${small.messages} (${(small.cleanup.ms / small.cleanup.batches).toFixed(1)} ms each), `
    + `${large.cleanup.batches} for ${large.cleanup.deleted} at ${large.messages} (${(large.cleanup.ms / large.cleanup.batches).toFixed(1)} ms each): a call's fixed cost weighs per row on a small purge, `
    + 'and a long purge walks past the index entries of the rows it deleted before a vacuum clears them',
};

/** For each cost that left the bound, where and why, from the figures of the two sizes. */
export function noteLines(runs: readonly SizeFigures[], ratios: readonly Ratio[], bound: number): string[] {
  return ratios.filter((ratio) => Math.abs(ratio.ratio - 1) > bound).map((ratio) => {
    const small = runs.find((run) => run.mode === ratio.mode && run.messages === ratio.base)!;
    const large = runs.find((run) => run.mode === ratio.mode && run.messages === ratio.messages)!;
    return `${ratio.mode} ${ratio.cost} ${ratio.messages}/${ratio.base} ${ratio.ratio.toFixed(2)}x: ${WHY[ratio.cost]?.(small, large) ?? ''}`;
  });
}
