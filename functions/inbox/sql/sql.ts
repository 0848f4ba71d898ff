import { SqlTemplateError } from './errors.js';

/** The Data API's type hints; the typed helpers of `sql` carry one each. */
export type TypeHint = 'UUID' | 'JSON' | 'TIMESTAMP' | 'DATE' | 'TIME' | 'DECIMAL';

/**
 * A value sent with a type hint, made by `sql.uuid`, `sql.json`, `sql.timestamp`, `sql.date`,
 * `sql.time` or `sql.decimal`. The Data API driver sends it as a string with its `typeHint`;
 * node-postgres sends the same string and lets the server infer the type.
 *
 * @example
 * ```ts
 * sql`SELECT * FROM orders WHERE order_id = ${sql.uuid(id)}`
 * ```
 */
export class TypedValue {
  public constructor(public readonly typeHint: TypeHint, public readonly value: string) {
    Object.freeze(this);
  }
}

/** What a `sql` template may bind. `Date` is bound as a TIMESTAMP in UTC. */
export type SqlValue = string | number | bigint | boolean | null | Date | Uint8Array | TypedValue;

/**
 * A parameterized statement: `strings` are the SQL text around the bound `values`
 * (`strings.length === values.length + 1`). Made only by the `sql` tag; frozen.
 *
 * @example
 * ```ts
 * const statement: SqlStatement = sql`UPDATE orders SET status = ${'shipped'} WHERE order_id = ${sql.uuid(id)}`;
 * ```
 */
export class SqlStatement {
  public readonly strings: readonly string[];
  public readonly values: readonly SqlValue[];

  /** @internal use the `sql` tag. */
  public constructor(strings: readonly string[], values: readonly SqlValue[]) {
    this.strings = Object.freeze([...strings]);
    this.values = Object.freeze([...values]);
    Object.freeze(this);
  }
}

/** A validated, quoted identifier, pasted into the text (identifiers cannot be bound). */
export class SqlIdentifier {
  public constructor(public readonly quoted: string) {
    Object.freeze(this);
  }
}

type Interpolation = SqlValue | SqlStatement | SqlIdentifier;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_$]{0,62}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIME = /^\d{2}:\d{2}:\d{2}(\.\d{1,6})?$/;

function isTemplate(strings: unknown): strings is TemplateStringsArray {
  return Array.isArray(strings) && Array.isArray((strings as unknown as TemplateStringsArray).raw);
}

function template(strings: TemplateStringsArray, ...interpolations: Interpolation[]): SqlStatement {
  if (!isTemplate(strings)) {
    throw new SqlTemplateError('sql is a tagged template: write sql`SELECT ${value}`, not sql("SELECT ...").');
  }
  const text: string[] = [strings[0] ?? ''];
  const values: SqlValue[] = [];
  interpolations.forEach((item, index) => {
    const next = strings[index + 1] ?? '';
    if (item === undefined) {
      throw new SqlTemplateError(`sql value ${index + 1} is undefined: bind null for SQL NULL, or leave the value out.`);
    }
    if (item instanceof SqlStatement) {
      text[text.length - 1] += item.strings[0] ?? '';
      item.values.forEach((value, i) => {
        values.push(value);
        text.push(item.strings[i + 1] ?? '');
      });
      text[text.length - 1] += next;
    } else if (item instanceof SqlIdentifier) {
      text[text.length - 1] += item.quoted + next;
    } else if (typeof item === 'object' && item !== null && !(item instanceof Date) && !(item instanceof Uint8Array) && !(item instanceof TypedValue)) {
      throw new SqlTemplateError(`sql value ${index + 1} is a plain object: bind it with sql.json(value).`);
    } else if (typeof item === 'number' && !Number.isFinite(item)) {
      throw new SqlTemplateError(`sql value ${index + 1} is ${item}: only finite numbers can be bound.`);
    } else {
      values.push(item);
      text.push(next);
    }
  });
  return new SqlStatement(text, values);
}

function identifier(...parts: string[]): SqlIdentifier {
  if (parts.length === 0) throw new SqlTemplateError('sql.identifier needs a name.');
  for (const part of parts) {
    if (!IDENTIFIER.test(part)) {
      throw new SqlTemplateError(`"${part}" is not a valid SQL identifier: use letters, digits and _ (at most 63), starting with a letter or _.`);
    }
  }
  return new SqlIdentifier(parts.map((part) => `"${part}"`).join('.'));
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

function toDate(value: Date | string, helper: string): Date {
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) throw new SqlTemplateError(`sql.${helper} was given an invalid date: ${String(value)}.`);
  return date;
}

/** `YYYY-MM-DD HH:MM:SS.FFF` in UTC: the Data API's TIMESTAMP format. */
export function formatTimestamp(date: Date): string {
  return `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}.${pad(date.getUTCMilliseconds(), 3)}`;
}

const helpers = {
  /** A uuid, checked for its form. */
  uuid(value: string): TypedValue {
    if (!UUID.test(value)) throw new SqlTemplateError(`sql.uuid was given "${value}", which is not a uuid.`);
    return new TypedValue('UUID', value.toLowerCase());
  },
  /** Any JSON-serializable value, sent as JSON text. */
  json(value: unknown): TypedValue {
    const text = JSON.stringify(value);
    if (text === undefined) throw new SqlTemplateError('sql.json was given a value that JSON cannot represent.');
    return new TypedValue('JSON', text);
  },
  /** A point in time, sent in UTC. */
  timestamp(value: Date | string): TypedValue {
    return new TypedValue('TIMESTAMP', formatTimestamp(toDate(value, 'timestamp')));
  },
  /** A calendar date: `YYYY-MM-DD`, or the UTC date of a `Date`. */
  date(value: Date | string): TypedValue {
    if (typeof value === 'string' && DATE.test(value)) return new TypedValue('DATE', value);
    return new TypedValue('DATE', formatTimestamp(toDate(value, 'date')).slice(0, 10));
  },
  /** A time of day: `HH:MM:SS[.ffffff]`. */
  time(value: string): TypedValue {
    if (!TIME.test(value)) throw new SqlTemplateError(`sql.time was given "${value}": write HH:MM:SS.`);
    return new TypedValue('TIME', value);
  },
  /** An exact number, kept as text so no digit is lost. */
  decimal(value: string | number | bigint): TypedValue {
    const text = String(value);
    if (!DECIMAL.test(text)) throw new SqlTemplateError(`sql.decimal was given "${text}", which is not a number.`);
    return new TypedValue('DECIMAL', text);
  },
  identifier,
};

/**
 * Builds a statement whose values are always bound, never spliced into the text. Nested `sql`
 * fragments are inlined with their values; `sql.identifier` quotes a validated name; `undefined`
 * and plain objects are refused.
 *
 * @example
 * ```ts
 * await tx.query(sql`UPDATE orders SET status = ${'shipped'}, version = version + 1 WHERE order_id = ${sql.uuid(id)}`);
 * await tx.query(sql`INSERT INTO audit (data, at) VALUES (${sql.json({ id })}, ${new Date()})`);
 * ```
 */
export const sql: typeof template & typeof helpers = Object.assign(template, helpers);

/**
 * The statement as node-postgres wants it: `$1`-style placeholders and plain values.
 *
 * @example
 * ```ts
 * const { text, values } = toPgQuery(sql`SELECT ${1}::int AS one`); // text: 'SELECT $1::int AS one'
 * ```
 */
export function toPgQuery(statement: SqlStatement): { text: string; values: unknown[] } {
  const text = statement.strings.reduce((acc, part, i) => (i === 0 ? part : `${acc}$${i}${part}`), '');
  const values = statement.values.map((value) => {
    if (value instanceof TypedValue) return value.typeHint === 'TIMESTAMP' ? `${value.value}+00` : value.value;
    if (value instanceof Date) return value.toISOString();
    if (typeof value === 'bigint') return value.toString();
    if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    return value;
  });
  return { text, values };
}
