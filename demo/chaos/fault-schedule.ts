import type { TimedFault } from './chaos-plan.js';
import type { Timeline } from './timeline.js';

/** What the schedule does to the running parts. */
export interface FaultActions {
  /** PostgreSQL stops (fast shutdown), stays down `downMs`, starts on the same data. */
  restartPostgres(downMs: number): Promise<void>;
  /** The Data API answers DatabaseResumingException for `ms`. */
  pauseAurora(ms: number): void;
  /** The Data API emulator stops, stays down `downMs`, starts on the same port. */
  restartDataApi(downMs: number): Promise<void>;
}

/** A running schedule. */
export interface RunningSchedule {
  /** Resolves when every fault of the plan has happened and ended; rejects with the first that could not be injected. */
  readonly done: Promise<void>;
  /** Drops the faults not yet started. */
  cancel(): void;
}

/**
 * Injects the plan's timed faults at their times (from now), each marked on the timeline at the
 * moment it really began and for as long as it really lasted.
 *
 * @example
 * ```ts
 * const schedule = scheduleFaults(plan.timed, actions, timeline);
 * await schedule.done;
 * ```
 */
export function scheduleFaults(faults: readonly TimedFault[], actions: FaultActions, timeline: Timeline): RunningSchedule {
  const origin = timeline.now();
  const timers: NodeJS.Timeout[] = [];
  const inject = (fault: TimedFault) => new Promise<void>((resolve, reject) => {
    timers.push(setTimeout(() => {
      const atMs = timeline.now();
      const injected = fault.kind === 'postgres-restart' ? actions.restartPostgres(fault.durationMs)
        : fault.kind === 'data-api-restart' ? actions.restartDataApi(fault.durationMs)
          : Promise.resolve(actions.pauseAurora(fault.durationMs));
      injected.then(() => {
        const durationMs = fault.kind === 'aurora-pause' ? fault.durationMs : timeline.now() - atMs;
        timeline.mark({ id: fault.id, kind: fault.kind, atMs, durationMs, detail: `planned at ${(fault.atMs / 1000).toFixed(1)} s` });
        resolve();
      }, reject);
    }, Math.max(0, fault.atMs - (timeline.now() - origin))));
  });
  const done = Promise.all(faults.map(inject)).then(() => undefined);
  done.catch(() => undefined);
  return {
    done,
    cancel: () => {
      for (const timer of timers) clearTimeout(timer);
    },
  };
}
