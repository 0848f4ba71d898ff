import { LocalConfigError } from './errors.js';

/** An AWS account id, as the emulators' ARNs and queue URLs carry it. */
export const ACCOUNT_ID = { pattern: /^\d{12}$/, described: '12 digits' } as const;

/** Checks of a stand-in's settings, each refusing a bad value with its name, what it must be and what was given. */
export interface SettingChecks<S> {
  /** A whole number from `min` to `max` (no upper bound when `max` is left out). */
  whole(name: keyof S & string, min: number, max?: number): void;
  /** One of `choices`. */
  oneOf(name: keyof S & string, choices: readonly string[]): void;
  /** A string `pattern` matches; `described` says in words what it is. */
  matches(name: keyof S & string, pattern: RegExp, described: string): void;
  /** A function; `shape` is its signature as the message shows it. */
  callable(name: keyof S & string, shape: string): void;
}

/**
 * The checks a stand-in runs over its options before it starts anything (the pollers, the
 * emulators and the main jobs alike), each throwing `LocalConfigError`.
 *
 * @example
 * ```ts
 * const check = settingChecks(settings);
 * check.whole('pollers', 1, 100);
 * check.oneOf('startingPosition', ['TRIM_HORIZON', 'LATEST']);
 * ```
 */
export function settingChecks<S extends object>(settings: S): SettingChecks<S> {
  const valueOf = (name: keyof S & string): unknown => settings[name];
  return {
    whole(name, min, max) {
      const value = valueOf(name);
      if (!Number.isInteger(value) || (value as number) < min || (max !== undefined && (value as number) > max)) {
        const range = max === undefined ? `>= ${min}` : `from ${min} to ${max}`;
        throw new LocalConfigError(`${name} must be a whole number ${range}, but ${String(value)} was given.`);
      }
    },
    oneOf(name, choices) {
      const value = valueOf(name);
      if (typeof value !== 'string' || !choices.includes(value)) {
        const listed = choices.map((choice) => `'${choice}'`);
        throw new LocalConfigError(`${name} must be ${listed.slice(0, -1).join(', ')}${listed.length > 1 ? ' or ' : ''}${listed.at(-1)}, but "${String(value)}" was given.`);
      }
    },
    matches(name, pattern, described) {
      const value = valueOf(name);
      if (typeof value !== 'string' || !pattern.test(value)) throw new LocalConfigError(`${name} must be ${described}, but "${String(value)}" was given.`);
    },
    callable(name, shape) {
      if (typeof valueOf(name) !== 'function') throw new LocalConfigError(`${name} must be a function ${shape}.`);
    },
  };
}
