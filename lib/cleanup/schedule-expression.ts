/**
 * One field of an EventBridge cron expression: its name, its range, the names it takes for values
 * (month and day-of-week), and the wildcards it allows beyond `, - * /`.
 */
interface CronField {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  readonly names?: readonly string[];
  /** `?` (no value), `L` (last), `W` (nearest weekday, day-of-month), `#` (nth weekday, day-of-week). */
  readonly special: readonly ('?' | 'L' | 'W' | '#')[];
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const WEEKDAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

/** The six fields, in order (eb-scheduled-rule-pattern: Minutes, Hours, Day-of-month, Month, Day-of-week, Year). */
const CRON_FIELDS: readonly CronField[] = [
  { name: 'minutes', min: 0, max: 59, special: [] },
  { name: 'hours', min: 0, max: 23, special: [] },
  { name: 'day-of-month', min: 1, max: 31, special: ['?', 'L', 'W'] },
  { name: 'month', min: 1, max: 12, names: MONTHS, special: [] },
  { name: 'day-of-week', min: 1, max: 7, names: WEEKDAYS, special: ['?', 'L', '#'] },
  { name: 'year', min: 1970, max: 2199, special: [] },
];

const RATE = /^rate\((\S+) (\S+)\)$/;
const CRON = /^cron\((.*)\)$/;
const RATE_UNITS = ['minute', 'minutes', 'hour', 'hours', 'day', 'days'];

function isValue(text: string, field: CronField): boolean {
  if (field.names?.includes(text.toUpperCase())) return true;
  if (!/^\d+$/.test(text)) return false;
  const n = Number(text);
  return n >= field.min && n <= field.max;
}

/** A value or a range of values (`MON-FRI`, `8-17`). */
function isValueOrRange(text: string, field: CronField): boolean {
  const [from, to, ...rest] = text.split('-');
  if (rest.length > 0 || from === undefined) return false;
  return isValue(from, field) && (to === undefined || isValue(to, field));
}

/** One item of a comma list: `*`, a value, a range, either with `/step`, or a field's own wildcard form. */
function isItem(item: string, field: CronField): boolean {
  if (field.special.includes('L') && (item === 'L' || (field.name === 'day-of-week' && /^.+L$/.test(item) && isValue(item.slice(0, -1), field)))) return true;
  if (field.special.includes('W') && /^\d+W$/.test(item) && isValue(item.slice(0, -1), field)) return true;
  if (field.special.includes('#') && /^[^#]+#[1-5]$/.test(item) && isValue(item.split('#')[0]!, field)) return true;
  const [base, step, ...rest] = item.split('/');
  if (rest.length > 0 || base === undefined) return false;
  if (step !== undefined && (!/^\d+$/.test(step) || Number(step) < 1)) return false;
  return base === '*' || isValueOrRange(base, field);
}

function cronFieldProblem(text: string, field: CronField): string | undefined {
  const bad = `the ${field.name} field "${text}"`;
  if (text === '?') return field.special.includes('?') ? undefined : `${bad}: only day-of-month and day-of-week take ?`;
  if (field.special.includes('#') && (text.match(/#/g)?.length ?? 0) > 1) return `${bad}: only one # expression is allowed`;
  if (text.includes('#') && text.includes(',')) return `${bad}: only one # expression is allowed, without a list`;
  const items = text.split(',');
  if (items.every((item) => isItem(item, field))) return undefined;
  const names = field.names ? ` or ${field.names[0]}-${field.names[field.names.length - 1]}` : '';
  return `${bad} is not a ${field.min}-${field.max}${names} value, range, list or step${field.special.length > 0 ? ` (or ${field.special.join(' ')})` : ''}`;
}

function rateProblem(value: string, unit: string): string | undefined {
  if (!/^\d+$/.test(value) || Number(value) < 1) return `the rate's value must be a positive whole number, not "${value}"`;
  if (!RATE_UNITS.includes(unit)) return `the rate's unit must be minute, minutes, hour, hours, day or days, not "${unit}"`;
  const plural = unit.endsWith('s');
  if (Number(value) === 1 && plural) return `the unit must be singular when the value is 1 (rate(1 ${unit.slice(0, -1)}))`;
  if (Number(value) > 1 && !plural) return `the unit must be plural when the value is over 1 (rate(${value} ${unit}s))`;
  return undefined;
}

function cronProblem(body: string): string | undefined {
  const fields = body.trim().split(/\s+/);
  if (fields.length !== CRON_FIELDS.length) {
    return `a cron expression has six fields (minutes hours day-of-month month day-of-week year), but ${fields.length} were given`;
  }
  for (const [index, field] of CRON_FIELDS.entries()) {
    const problem = cronFieldProblem(fields[index]!, field);
    if (problem !== undefined) return problem;
  }
  if ((fields[2] === '?') === (fields[4] === '?')) {
    return 'one of day-of-month and day-of-week must be ?, and the other must not: they cannot both name days';
  }
  return undefined;
}

/**
 * What EventBridge would refuse in a schedule expression, or `undefined` when it is valid: the
 * rules of rate expressions (a positive whole value, minute(s), hour(s) or day(s), singular for 1
 * and plural above) and of cron expressions (six fields in their ranges, `?` in exactly one of
 * day-of-month and day-of-week, at most one `#`). CDK's `Schedule.expression` passes any string
 * through, so without this a typo fails only at deploy time.
 *
 * @example
 * ```ts
 * scheduleExpressionProblem('rate(1 hours)') // 'the unit must be singular when the value is 1 (rate(1 hour))'
 * scheduleExpressionProblem('cron(17 3 * * ? *)') // undefined
 * ```
 */
export function scheduleExpressionProblem(expression: string): string | undefined {
  const rate = RATE.exec(expression);
  if (rate) return rateProblem(rate[1]!, rate[2]!);
  const cron = CRON.exec(expression);
  if (cron) return cronProblem(cron[1]!);
  return 'it is neither rate(value unit) nor cron(minutes hours day-of-month month day-of-week year)';
}

const MINUTES_OF = { minute: 1, minutes: 1, hour: 60, hours: 60, day: 1440, days: 1440 } as const;

/**
 * Why a valid schedule expression may let a day pass without a run, or `undefined` when it runs at
 * least once every day: a rate of at most a day, or a cron whose day-of-month, day-of-week, month
 * and year fields are all open (`*` or `?`), which runs on each day at its hours and minutes. A
 * cron that names days (`MON-FRI`, `1`, `L`) is taken as skipping some, since whether it does
 * depends on the calendar.
 *
 * @example
 * ```ts
 * dailyScheduleProblem('rate(12 hours)') // undefined
 * dailyScheduleProblem('cron(0 8 ? * MON-FRI *)') // 'it runs only on the days its day-of-week field names'
 * ```
 */
export function dailyScheduleProblem(expression: string): string | undefined {
  const rate = RATE.exec(expression);
  if (rate) {
    const minutes = Number(rate[1]) * MINUTES_OF[rate[2] as keyof typeof MINUTES_OF];
    return minutes <= MINUTES_OF.day ? undefined : `it runs every ${rate[1]} ${rate[2]}, less often than daily`;
  }
  const fields = CRON.exec(expression)?.[1]?.trim().split(/\s+/) ?? [];
  const open = (index: number): boolean => fields[index] === '*' || fields[index] === '?';
  const named = [2, 3, 4, 5].filter((index) => !open(index)).map((index) => CRON_FIELDS[index]!.name);
  return named.length === 0 ? undefined : `it runs only on the days its ${named.join(' and ')} field${named.length > 1 ? 's name' : ' names'}`;
}
