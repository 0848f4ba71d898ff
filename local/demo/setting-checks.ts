import { InboxConfigError } from '../../functions/inbox/index.js';

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
