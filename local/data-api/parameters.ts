import { codeSpans } from '../../functions/inbox/internal.js';
import { badRequest } from './service-errors.js';

/** The statement as node-postgres runs it: `$n` placeholders with their casts, and the values. */
export interface BoundStatement {
  readonly text: string;
  readonly values: unknown[];
}

const TYPE_HINTS: Readonly<Record<string, string>> = {
  UUID: 'uuid',
  JSON: 'json',
  TIMESTAMP: 'timestamp',
  DATE: 'date',
  TIME: 'time',
  DECIMAL: 'numeric',
};
const FIELD_MEMBERS = ['isNull', 'booleanValue', 'longValue', 'doubleValue', 'stringValue', 'blobValue', 'arrayValue'] as const;
const NAME_START = /[A-Za-z_]/;
const NAME_PART = /[A-Za-z0-9_]/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A placeholder and its value, as Aurora binds a Data API parameter through JDBC. */
function bind(parameter: unknown, index: number): { name: string; cast: string; value: unknown } {
  if (typeof parameter !== 'object' || parameter === null) throw badRequest(`parameters[${index}] must be an object.`);
  const { name, value, typeHint } = parameter as { name?: unknown; value?: unknown; typeHint?: unknown };
  if (typeof name !== 'string' || name === '') throw badRequest(`parameters[${index}] has no name.`);
  if (typeof value !== 'object' || value === null) throw badRequest(`Parameter ${name} has no value.`);
  const members = Object.keys(value).filter((key) => (value as Record<string, unknown>)[key] !== undefined);
  const member = members[0];
  if (members.length !== 1 || !FIELD_MEMBERS.includes(member as (typeof FIELD_MEMBERS)[number])) {
    throw badRequest(`Parameter ${name} must have exactly one of ${FIELD_MEMBERS.join(', ')}, but it has ${members.join(', ') || 'none'}.`);
  }
  const given = (value as Record<string, unknown>)[member!];
  if (typeHint !== undefined && (typeof typeHint !== 'string' || !(typeHint in TYPE_HINTS))) {
    throw badRequest(`Parameter ${name} has typeHint ${JSON.stringify(typeHint)}; the valid values are ${Object.keys(TYPE_HINTS).join(', ')}.`);
  }
  if (typeHint !== undefined && member !== 'stringValue') throw badRequest(`Parameter ${name} has a typeHint, which applies to a stringValue only.`);
  switch (member) {
    case 'isNull':
      if (given !== true) throw badRequest(`Parameter ${name}: isNull must be true.`);
      return { name, cast: '', value: null };
    case 'booleanValue':
      if (typeof given !== 'boolean') throw badRequest(`Parameter ${name}: booleanValue must be a boolean.`);
      return { name, cast: 'boolean', value: given };
    case 'longValue':
      if (typeof given !== 'number' || !Number.isInteger(given)) throw badRequest(`Parameter ${name}: longValue must be an integer.`);
      return { name, cast: 'bigint', value: BigInt(given).toString() };
    case 'doubleValue':
      if (typeof given !== 'number') throw badRequest(`Parameter ${name}: doubleValue must be a number.`);
      return { name, cast: 'float8', value: given };
    case 'stringValue':
      if (typeof given !== 'string') throw badRequest(`Parameter ${name}: stringValue must be a string.`);
      // Without a hint a string is a varchar, so comparing it with a uuid or timestamp column fails as on Aurora.
      return { name, cast: typeHint === undefined ? 'varchar' : TYPE_HINTS[typeHint as string]!, value: given };
    case 'blobValue':
      if (typeof given !== 'string' || !BASE64.test(given)) throw badRequest(`Parameter ${name}: blobValue must be base64.`);
      return { name, cast: 'bytea', value: Buffer.from(given, 'base64') };
    default:
      throw badRequest('Array parameters are not supported.');
  }
}

/**
 * Every `:name` of the SQL that is code (not in a quote, a comment or a dollar quote, and not a
 * `::` cast), in order, with where it starts and ends.
 *
 * @example
 * ```ts
 * namedParameters("SELECT :a::text, ':b' -- :c") // [{ name: 'a', start: 7, end: 9 }]
 * ```
 */
export function namedParameters(sql: string): { name: string; start: number; end: number }[] {
  const found: { name: string; start: number; end: number }[] = [];
  for (const span of codeSpans(sql)) {
    let i = span.start;
    while (i < span.end) {
      if (sql[i] === ':' && sql[i + 1] === ':') {
        i += 2;
      } else if (sql[i] === ':' && NAME_START.test(sql[i + 1] ?? '') && i + 1 < span.end) {
        let end = i + 2;
        while (end < span.end && NAME_PART.test(sql[end] ?? '')) end += 1;
        found.push({ name: sql.slice(i + 1, end), start: i, end });
        i = end;
      } else {
        i += 1;
      }
    }
  }
  return found;
}

/**
 * The Data API statement rewritten for node-postgres: each `:name` becomes `($n::type)` with the
 * type its value and typeHint give (an untyped `$n` for a null), each name bound once.
 *
 * @example
 * ```ts
 * bindStatement('SELECT * FROM t WHERE id = :id', [{ name: 'id', value: { stringValue: 'x' }, typeHint: 'UUID' }])
 * // { text: 'SELECT * FROM t WHERE id = ($1::uuid)', values: ['x'] }
 * ```
 */
export function bindStatement(sql: string, parameters: unknown): BoundStatement {
  if (parameters !== undefined && !Array.isArray(parameters)) throw badRequest('parameters must be a list.');
  const byName = new Map<string, ReturnType<typeof bind>>();
  (parameters ?? []).forEach((parameter: unknown, index: number) => {
    const bound = bind(parameter, index);
    byName.set(bound.name, bound);
  });
  const numbers = new Map<string, number>();
  const values: unknown[] = [];
  let text = '';
  let from = 0;
  for (const use of namedParameters(sql)) {
    const bound = byName.get(use.name);
    if (bound === undefined) throw badRequest(`No value specified for parameter: ${use.name}`);
    let number = numbers.get(use.name);
    if (number === undefined) {
      values.push(bound.value);
      number = values.length;
      numbers.set(use.name, number);
    }
    text += sql.slice(from, use.start) + (bound.cast === '' ? `$${number}` : `($${number}::${bound.cast})`);
    from = use.end;
  }
  return { text: text + sql.slice(from), values };
}
