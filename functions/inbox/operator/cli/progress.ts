import type { CliIo } from './cli-io.js';

/** Progress of one long piece of work, told how many items are done. */
export interface Progress {
  /** `done` items so far (not an increment). */
  update(done: number): void;
  /** The last count, and the line ended. */
  end(): void;
}

/** When plain lines are written without a terminal: every this many items, or this often. */
export interface ProgressPace {
  readonly everyItems: number;
  readonly everyMs: number;
  readonly now: () => number;
}

const WIDTH = 24;
const PACE: ProgressPace = { everyItems: 100, everyMs: 5000, now: Date.now };

function line(label: string, done: number, total: number | undefined, elapsedMs: number): string {
  const count = total === undefined ? `${done}` : `${done}/${total}`;
  return `${label}: ${count}  ${(elapsedMs / 1000).toFixed(1)} s`;
}

function bar(done: number, total: number | undefined): string {
  const share = total === undefined || total === 0 ? 0 : Math.min(1, done / total);
  const filled = Math.round(share * WIDTH);
  return `[${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] `;
}

/**
 * Progress on stderr (stdout stays the command's answer, `--json` included): at a terminal one line,
 * a bar and the count, redrawn in place; without one, a plain line every `everyItems` items or
 * `everyMs` milliseconds, whichever comes first, and one at the end, so a CI log shows a long run
 * moving without a line per item. Our own forty lines: a library (cli-progress and its string-width)
 * would bring more than the one line this needs.
 *
 * @example
 * ```ts
 * const progress = progressOf(io, 'replayed', rows.length);
 * for (const [index, row] of rows.entries()) { await replay(row); progress.update(index + 1); }
 * progress.end();
 * ```
 */
export function progressOf(io: Pick<CliIo, 'stderr' | 'stderrTerminal'>, label: string, total: number | undefined, pace: ProgressPace = PACE): Progress {
  const startedAt = pace.now();
  let last = { done: 0, at: startedAt };
  let shown = 0;
  let current = 0;
  return {
    update(done) {
      current = done;
      const at = pace.now();
      if (io.stderrTerminal === true) {
        io.stderr(`\r${bar(done, total)}${line(label, done, total, at - startedAt)}`);
        shown = done;
      } else if (done - last.done >= pace.everyItems || at - last.at >= pace.everyMs) {
        io.stderr(`${line(label, done, total, at - startedAt)}\n`);
        last = { done, at };
        shown = done;
      }
    },
    end() {
      const elapsed = pace.now() - startedAt;
      if (io.stderrTerminal === true) io.stderr(`\r${bar(current, total)}${line(label, current, total, elapsed)}\n`);
      else if (current !== shown) io.stderr(`${line(label, current, total, elapsed)}\n`);
    },
  };
}
