import { InboxConfigError } from '../functions/inbox/index.js';

/** Checks of a run's numeric settings, each refusing a bad value with its name and what it must be. */
export interface SettingChecks<S> {
  whole(name: keyof S & string, min: number, max: number): void;
  share(name: keyof S & string): void;
}

/**
 * The checks a main job runs over its settings before it starts anything.
 *
 * @example
 * ```ts
 * const check = settingChecks(settings);
 * check.whole('orders', 1, 1_000_000);
 * check.share('crashRate');
 * ```
 */
export function settingChecks<S extends object>(settings: S): SettingChecks<S> {
  const valueOf = (name: keyof S & string): unknown => settings[name];
  return {
    whole(name, min, max) {
      const value = valueOf(name);
      if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) {
        throw new InboxConfigError(`${name} must be a whole number from ${min} to ${max}, but ${String(value)} was given.`);
      }
    },
    share(name) {
      const value = valueOf(name);
      if (typeof value !== 'number' || !(value >= 0 && value <= 1)) throw new InboxConfigError(`${name} must be a share from 0 to 1, but ${String(value)} was given.`);
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
 * checkCommonRunSettings(settings); // throws InboxConfigError naming the first bad one
 * ```
 */
export function checkCommonRunSettings(settings: CommonRunSettings): void {
  const { whole, share } = settingChecks(settings);
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
  if (settings.mode !== 'statement' && settings.mode !== 'transaction') throw new InboxConfigError(`mode must be 'statement' or 'transaction', but "${String(settings.mode)}" was given.`);
  if (!Array.isArray(settings.crashes) || settings.crashes.length === 0 || settings.crashes.some((when) => when !== 'before-commit' && when !== 'after-commit')) {
    throw new InboxConfigError(`crashes must list 'before-commit' and/or 'after-commit', but ${JSON.stringify(settings.crashes)} was given.`);
  }
}
