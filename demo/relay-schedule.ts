import type { Database } from '../functions/inbox/index.js';
import { sleep } from '../functions/inbox/internal.js';
import { relayOutbox, type Publisher } from '../functions/inbox/outbox/index.js';
import { dyingDatabase, InjectedCrashError, type DyingInvocation } from './crashing-handler.js';
import type { LambdaEnvironment } from './lambda-environment.js';

/** Options of `startRelaySchedule`. */
export interface RelayScheduleOptions {
  /** The consumer whose rows the relays send. */
  readonly consumer: string;
  /** The database every run shares, unless `environment` gives each run its own. */
  readonly db: Database;
  /**
   * Makes a Lambda execution environment: a run takes an idle one, or a new one; a run that dies
   * kills its environment, which is never used again. The caller closes what it made.
   * @default none: every run uses `db`
   */
  readonly environment?: () => LambdaEnvironment;
  /** The relay's targets for one run, given the run, so a fault in a send can end it. */
  readonly targets: (run: DyingInvocation) => Readonly<Record<string, Publisher>>;
  /** How often the schedule fires. */
  readonly intervalMs: number;
  /** The relay function's timeout: a run's lease on the rows it takes lasts as long. */
  readonly timeoutMs: number;
  /** How long a row is left to the invocation that wrote it. */
  readonly graceMs: number;
  /** Whether this firing starts two relays at once instead of one. */
  readonly twice: () => boolean;
}

/** What the schedule did. */
export interface RelayScheduleStats {
  /** Relay runs started. */
  readonly runs: number;
  /** Firings that started two runs at once. */
  readonly twiceAtOnce: number;
  /** Runs that died in a send, before it or between it and the mark. */
  readonly crashes: number;
  /** Runs that threw for another reason, by error name: anything here is news. */
  readonly errors: Readonly<Record<string, number>>;
}

/** A running schedule. */
export interface RunningRelaySchedule {
  stats(): RelayScheduleStats;
  /** Stops firing and waits for the runs in flight (a dead run is not waited for). */
  stop(): Promise<void>;
}

/** Runs in flight at most: a firing while two are still running is skipped, as a reserved concurrency of 2 would. */
const MAX_RUNS_AT_ONCE = 2;

/**
 * The outbox relay as deployed: a scheduled Lambda, here fired every `intervalMs`, each run a
 * `relayOutbox` with the function's timeout as its deadline (and so as its lease). Some firings
 * start two runs at once, which `FOR UPDATE SKIP LOCKED` keeps from sending one row twice; a run
 * whose targets end it in a send (`crashingPublisher`) dies there, leaving their rows leased until the run's deadline, for a later run.
 *
 * @example
 * ```ts
 * const relays = startRelaySchedule({ consumer: 'ship-order', db, targets: () => targets, intervalMs: 250, timeoutMs: 3000, graceMs: 1000, twice: () => false });
 * await relays.stop();
 * ```
 */
export function startRelaySchedule(options: RelayScheduleOptions): RunningRelaySchedule {
  const counts = { runs: 0, twiceAtOnce: 0, crashes: 0 };
  const errors: Record<string, number> = {};
  const inFlight = new Set<Promise<void>>();
  const idle: LambdaEnvironment[] = [];
  let stopped = false;

  const run = async (): Promise<void> => {
    counts.runs += 1;
    const environment = options.environment === undefined ? undefined : (idle.pop() ?? options.environment());
    let died = false;
    const dying = dyingDatabase(environment?.db ?? options.db, undefined, 'abandoned');
    dying.death.catch((reason: Error) => environment?.kill(reason));
    const deadline = Date.now() + options.timeoutMs;
    try {
      await Promise.race([
        relayOutbox(dying.db, options.targets(dying), {
          consumer: options.consumer,
          graceMs: options.graceMs,
          remainingMs: () => deadline - Date.now(),
          // A tenth of the timeout, as the kit's 5 s is of a minute's run.
          marginMs: Math.round(options.timeoutMs / 10),
        }),
        dying.death,
      ]);
    } catch (error) {
      died = error instanceof InjectedCrashError;
      if (died) counts.crashes += 1;
      else errors[(error as Error)?.name ?? 'Error'] = (errors[(error as Error)?.name ?? 'Error'] ?? 0) + 1;
    } finally {
      if (environment !== undefined && !died) idle.push(environment);
    }
  };
  const start = () => {
    const running = run().finally(() => inFlight.delete(running));
    inFlight.add(running);
  };
  const firing = (async () => {
    while (!stopped) {
      if (inFlight.size < MAX_RUNS_AT_ONCE) {
        start();
        if (options.twice() && inFlight.size < MAX_RUNS_AT_ONCE) {
          counts.twiceAtOnce += 1;
          start();
        }
      }
      await sleep(options.intervalMs);
    }
  })();

  return {
    stats: () => ({ ...counts, errors: { ...errors } }),
    async stop() {
      stopped = true;
      await firing;
      await Promise.all(inFlight);
    },
  };
}
