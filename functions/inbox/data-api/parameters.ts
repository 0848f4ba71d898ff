import type { SqlParameter } from '@aws-sdk/client-rds-data';
import { SqlTemplateError } from '../sql/errors.js';
import { formatTimestamp, TypedValue, type SqlStatement, type SqlValue } from '../sql/sql.js';

/** A statement as the Data API takes it: `:p1`-style names in the text and one parameter per value. */
export interface DataApiStatement {
  readonly sql: string;
  readonly parameters: SqlParameter[];
}

/**
 * One bound value as a Data API parameter. Safe integers go as `longValue`, other numbers as
 * `doubleValue`; a bigint outside the safe range goes as a DECIMAL string, because the SDK sends
 * `longValue` as a JSON number and would lose its digits. `Date` is a UTC TIMESTAMP; null is
 * `{ isNull: true }` alone.
 *
 * @example
 * ```ts
 * toSqlParameter('p1', sql.uuid(id)) // { name: 'p1', value: { stringValue: id }, typeHint: 'UUID' }
 * ```
 */
export function toSqlParameter(name: string, value: SqlValue): SqlParameter {
  if (value === null) return { name, value: { isNull: true } };
  if (value instanceof TypedValue) return { name, value: { stringValue: value.value }, typeHint: value.typeHint };
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new SqlTemplateError(`sql value :${name} is an invalid Date.`);
    return { name, value: { stringValue: formatTimestamp(value) }, typeHint: 'TIMESTAMP' };
  }
  if (value instanceof Uint8Array) return { name, value: { blobValue: value } };
  switch (typeof value) {
    case 'string':
      return { name, value: { stringValue: value } };
    case 'boolean':
      return { name, value: { booleanValue: value } };
    case 'number':
      return Number.isSafeInteger(value) ? { name, value: { longValue: value } } : { name, value: { doubleValue: value } };
    case 'bigint':
      return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
        ? { name, value: { longValue: Number(value) } }
        : { name, value: { stringValue: value.toString() }, typeHint: 'DECIMAL' };
    default:
      throw new SqlTemplateError(`sql value :${name} has a type the Data API cannot bind (${typeof value}).`);
  }
}

/**
 * The statement with its values named `:p1` to `:pn`, in order, and their parameters.
 *
 * @example
 * ```ts
 * toDataApiStatement(sql`UPDATE orders SET status = ${'shipped'} WHERE order_id = ${sql.uuid(id)}`)
 * // { sql: 'UPDATE orders SET status = :p1 WHERE order_id = :p2', parameters: [...] }
 * ```
 */
export function toDataApiStatement(statement: SqlStatement): DataApiStatement {
  const text = statement.strings.reduce((acc, part, i) => (i === 0 ? part : `${acc}:p${i}${part}`), '');
  const parameters = statement.values.map((value, i) => toSqlParameter(`p${i + 1}`, value));
  return { sql: text, parameters };
}
