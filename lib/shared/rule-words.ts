import type { Duration } from 'aws-cdk-lib';

/** One thing a consumer refuses: `breaks` says whether the settings do it, `message` what to change. */
export interface ConsumerRule<S> {
  readonly breaks: (settings: S) => boolean;
  readonly message: (settings: S) => string;
}

/** A duration as the rules quote it: `90 s`. */
export const seconds = (d: Duration): string => `${d.toSeconds({ integral: false })} s`;

const plural = (n: number, unit: string): string => `${n} ${unit}${n === 1 ? '' : 's'}`;

/** A retention as the rules quote it: `22 days`, `21 days 23 hours`, and the seconds left over when not whole hours. */
export const days = (d: Duration): string => {
  const total = d.toSeconds({ integral: false });
  const wholeDays = Math.floor(total / 86_400);
  const hours = Math.floor((total - wholeDays * 86_400) / 3600);
  const rest = total - wholeDays * 86_400 - hours * 3600;
  const parts = [wholeDays > 0 || total === 0 ? plural(wholeDays, 'day') : '', hours > 0 ? plural(hours, 'hour') : '', rest > 0 ? `${rest} s` : ''];
  return parts.filter((part) => part !== '').join(' ');
};

/** Whether `n` is a whole number in `range`. */
export const isWhole = (n: number, range: { readonly min: number; readonly max: number }): boolean =>
  Number.isInteger(n) && n >= range.min && n <= range.max;
