/** What the bar shows. */
export interface ProgressState {
  readonly settled: number;
  readonly total: number;
  readonly elapsedMs: number;
}

const WIDTH = 30;

/**
 * One line of progress: a bar, the count and the seconds so far.
 *
 * @example
 * ```ts
 * progressBar({ settled: 1500, total: 3000, elapsedMs: 4200 }) // '[###############...............] 1500/3000  4.2 s'
 * ```
 */
export function progressBar(state: ProgressState): string {
  const share = state.total > 0 ? Math.min(1, Math.max(0, state.settled / state.total)) : 1;
  const filled = Math.round(share * WIDTH);
  return `[${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${state.settled}/${state.total}  ${(state.elapsedMs / 1000).toFixed(1)} s`;
}
