import type { Outcome } from '../functions/inbox/index.js';
import { sqlStateOf } from '../functions/inbox/internal.js';

/** What a main job counts of the worker's outcomes: the duplicates it suppressed, and why deliveries failed. */
export interface OutcomeTally {
  readonly onOutcome: (outcome: Outcome) => void;
  /** By error name and SQLSTATE: `InjectedCrashError`, `DatabaseQueryError 55P03`, anything else is news. */
  readonly failureReasons: Readonly<Record<string, number>>;
  duplicatesSuppressed(): number;
}

/**
 * Why a delivery failed, as the report counts it: the error's name, and its SQLSTATE when it has one.
 *
 * @example
 * ```ts
 * failureReason(outcome) // 'DatabaseQueryError 55P03'
 * ```
 */
export function failureReason(outcome: Outcome): string {
  const name = outcome.error instanceof Error ? outcome.error.name : typeof outcome.error;
  const state = sqlStateOf(outcome.error);
  return state === undefined ? name : `${name} ${state}`;
}

/**
 * A tally to hand the worker as its `onOutcome`.
 *
 * @example
 * ```ts
 * const tally = outcomeTally();
 * const options = shipOrderOptions(db, { onOutcome: tally.onOutcome });
 * ```
 */
export function outcomeTally(): OutcomeTally {
  const failureReasons: Record<string, number> = {};
  let duplicates = 0;
  return {
    failureReasons,
    duplicatesSuppressed: () => duplicates,
    onOutcome: (outcome) => {
      if (outcome.kind === 'duplicate') duplicates += 1;
      if (outcome.kind !== 'failed') return;
      const reason = failureReason(outcome);
      failureReasons[reason] = (failureReasons[reason] ?? 0) + 1;
    },
  };
}
