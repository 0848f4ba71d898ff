import { LocalConfigError, settingChecks as standInChecks, type SettingChecks as StandInChecks } from '../local/internal.js';

/** The stand-ins' checks of a run's settings, and one of its own for the fault rates. */
export interface RunSettingChecks<S> extends StandInChecks<S> {
  /** A share from 0 to 1. */
  share(name: keyof S & string): void;
}

/**
 * The checks a main job runs over its settings before it starts anything, each throwing
 * `LocalConfigError` with the setting's name, what it must be and what was given.
 *
 * @example
 * ```ts
 * const check = settingChecks(settings);
 * check.whole('orders', 1, 1_000_000);
 * check.share('crashRate');
 * ```
 */
export function settingChecks<S extends object>(settings: S): RunSettingChecks<S> {
  return {
    ...standInChecks(settings),
    share(name) {
      const value: unknown = settings[name];
      if (typeof value !== 'number' || !(value >= 0 && value <= 1)) throw new LocalConfigError(`${name} must be a share from 0 to 1, but ${String(value)} was given.`);
    },
  };
}

/** The settings every main job has, whatever its source. */
export interface CommonRunSettings {
  readonly orders: number;
  readonly poison: number;
  readonly stuck: number;
  readonly groups: number;
  readonly seed: number;
  readonly pollers: number;
  readonly lockTimeoutMs: number;
  readonly transactionIdleTimeoutMs: number;
  readonly drainTimeoutMs: number;
  readonly crashRate: number;
  readonly deliverTwiceRate: number;
  readonly producerRetryRate: number;
  readonly mode: string;
  readonly crashes: readonly string[];
}

/**
 * Checks the settings both main jobs share: the workload, the fault rates, the mode and where
 * crashes happen.
 *
 * @example
 * ```ts
 * checkCommonRunSettings(settings); // throws LocalConfigError naming the first bad one
 * ```
 */
export function checkCommonRunSettings(settings: CommonRunSettings): void {
  const { whole, share, oneOf } = settingChecks(settings);
  whole('orders', 1, 1_000_000);
  whole('poison', 0, 100_000);
  whole('stuck', 0, settings.orders);
  whole('groups', 1, 100_000);
  whole('seed', 0, 2 ** 32 - 1);
  whole('pollers', 1, 100);
  whole('lockTimeoutMs', 1, 60_000);
  whole('transactionIdleTimeoutMs', 1, 180_000);
  whole('drainTimeoutMs', 1000, 3_600_000);
  share('crashRate');
  share('deliverTwiceRate');
  share('producerRetryRate');
  oneOf('mode', ['statement', 'transaction']);
  if (!Array.isArray(settings.crashes) || settings.crashes.length === 0 || settings.crashes.some((when) => when !== 'before-commit' && when !== 'after-commit')) {
    throw new LocalConfigError(`crashes must list 'before-commit' and/or 'after-commit', but ${JSON.stringify(settings.crashes)} was given.`);
  }
}
