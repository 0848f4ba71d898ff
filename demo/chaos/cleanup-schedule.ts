import { cleanupInbox } from '../../functions/inbox/cleanup/index.js';
import { untilResumed } from '../../functions/inbox/data-api/index.js';
import type { Database } from '../../functions/inbox/index.js';
import type { Timeline } from './timeline.js';

/** What the scheduled cleanup did over the run. */
export interface CleanupRuns {
  runs: number;
  /** Runs that failed (the database down, the emulator gone, the pause outlasting the run). */
  failed: number;
  deleted: number;
}

/**
 * Runs the inbox cleanup (`sqs-inbox/cleanup`, as the scheduled Lambda does, waiting out a
 * resuming cluster within its run) every `everyMs` on `db` with `retentionMs`, until `stop()`.
 * A run that fails is counted and the next one goes on, as the next schedule would.
 *
 * @example
 * ```ts
 * const cleanup = scheduleCleanup(db, { retentionMs: 150_000, everyMs: 5000 }, timeline);
 * const runs = await cleanup.stop();
 * ```
 */
export function scheduleCleanup(db: Database, options: { retentionMs: number; everyMs: number }, timeline: Timeline): { stop(): Promise<CleanupRuns> } {
  const runs: CleanupRuns = { runs: 0, failed: 0, deleted: 0 };
  let stopped = false;
  let wake: () => void = () => undefined;
  const loop = (async () => {
    while (!stopped) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.everyMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      if (stopped) return;
      const atMs = timeline.now();
      const deadline = performance.now() + options.everyMs;
      const remainingMs = () => deadline - performance.now() + 5000;
      runs.runs += 1;
      try {
        const report = await untilResumed(() => cleanupInbox(db, { retentionMs: options.retentionMs, remainingMs }), { remainingMs });
        runs.deleted += report.deleted;
        timeline.mark({ id: `cleanup-${runs.runs}`, kind: 'cleanup', atMs, durationMs: timeline.now() - atMs, detail: `${report.deleted} rows purged` });
      } catch (error) {
        runs.failed += 1;
        timeline.mark({ id: `cleanup-${runs.runs}`, kind: 'cleanup', atMs, durationMs: timeline.now() - atMs, detail: `failed: ${(error as Error).name}` });
      }
    }
  })();
  return {
    async stop() {
      stopped = true;
      wake();
      await loop;
      return runs;
    },
  };
}
