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

/** The table of every run: one line per mode and size. */
export function figureLines(runs: readonly ScaleFigures[]): string[] {
  const head = ['mode'.padEnd(11), 'messages', 'wall s', 'msg/s', 'worker CPU ms/msg', 'emulator CPU ms/msg', 'calls/msg', 'table B/msg', 'index B/msg',
    'cleanup s', 'cleanup us/row', 'redelivered', 'parked', 'load 1m'];
  const lines = [head.join('  ')];
  for (const run of runs) {
    const cells = [
      run.mode.padEnd(11),
      String(run.messages), (run.wallMs / 1000).toFixed(1), (run.messages / (run.wallMs / 1000)).toFixed(0),
      (run.workerCpuMs / run.messages).toFixed(3), (run.emulatorCpuMs / run.messages).toFixed(3), (run.dataApiCalls / run.messages).toFixed(2),
      (run.tableBytes / run.messages).toFixed(1), (run.indexBytes / run.messages).toFixed(1),
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
