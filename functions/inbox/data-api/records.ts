import type { ArrayValue, ColumnMetadata, ExecuteStatementCommandOutput, Field } from '@aws-sdk/client-rds-data';
import type { QueryResult, Row } from '../database/database.js';

// The Data API's TIMESTAMP text: `YYYY-MM-DD HH:MM:SS[.ffffff]`, in UTC.
const TIMESTAMP = /^(\d{4,})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?$/;

/** A Data API timestamp as a `Date` (UTC, to the millisecond as node-postgres gives it); other text as it came. */
function timestampValue(text: string): Date | string {
  const match = TIMESTAMP.exec(text);
  if (!match) return text;
  const [, year, month, day, hours, minutes, seconds, fraction = ''] = match;
  return new Date(Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hours), Number(minutes), Number(seconds),
    Number(fraction.padEnd(3, '0').slice(0, 3))));
}

function arrayValue(array: ArrayValue): unknown[] {
  if (array.longValues) return array.longValues;
  if (array.doubleValues) return array.doubleValues;
  if (array.booleanValues) return array.booleanValues;
  if (array.stringValues) return array.stringValues;
  if (array.arrayValues) return array.arrayValues.map((inner) => (inner === null ? null : arrayValue(inner)));
  return [];
}

/** The field as the Data API typed it, before the column's type is looked at. */
function rawValue(field: Field): unknown {
  if (field.isNull) return null;
  if (field.stringValue !== undefined) return field.stringValue;
  if (field.longValue !== undefined) return field.longValue;
  if (field.doubleValue !== undefined) return field.doubleValue;
  if (field.booleanValue !== undefined) return field.booleanValue;
  if (field.blobValue !== undefined) return Buffer.from(field.blobValue);
  if (field.arrayValue !== undefined) return arrayValue(field.arrayValue);
  return null;
}

/**
 * One field as node-postgres would give it for the column's type, so rows look the same on both
 * drivers: int8 and numeric as strings (no digit lost), int2/int4 as numbers, json and jsonb parsed,
 * timestamps as `Date`, bytea as `Buffer`; date, time and anything else as the service's text.
 *
 * @example
 * ```ts
 * fieldValue({ stringValue: '2024-05-01 12:00:00' }, { typeName: 'timestamptz' }) // Date 2024-05-01T12:00:00.000Z
 * ```
 */
export function fieldValue(field: Field, column: ColumnMetadata | undefined): unknown {
  const value = rawValue(field);
  if (value === null || typeof value !== 'string' && typeof value !== 'number') return value;
  switch (column?.typeName?.toLowerCase()) {
    case 'int2': case 'int4': case 'serial': case 'smallserial': case 'oid':
      return Number(value);
    case 'int8': case 'bigserial': case 'numeric':
      return String(value);
    case 'float4': case 'float8':
      return Number(value);
    case 'json': case 'jsonb':
      return typeof value === 'string' ? JSON.parse(value) as unknown : value;
    case 'timestamp': case 'timestamptz':
      return typeof value === 'string' ? timestampValue(value) : value;
    default:
      return value;
  }
}

/**
 * What an ExecuteStatement returned, as the kit's `QueryResult`: rows keyed by column label, and
 * `rowCount` as node-postgres counts it (the rows returned by a statement that returns rows, the
 * rows changed by one that does not).
 *
 * @example
 * ```ts
 * toQueryResult({ columnMetadata: [{ label: 'one', typeName: 'int4' }], records: [[{ longValue: 1 }]] }) // { rows: [{ one: 1 }], rowCount: 1 }
 * ```
 */
export function toQueryResult<R = Row>(output: Pick<ExecuteStatementCommandOutput, 'columnMetadata' | 'records' | 'numberOfRecordsUpdated'>): QueryResult<R> {
  const columns = output.columnMetadata ?? [];
  if (columns.length === 0) return { rows: [], rowCount: output.numberOfRecordsUpdated ?? 0 };
  const names = columns.map((column, i) => column.label || column.name || `?column${i + 1}?`);
  const rows = (output.records ?? []).map((record) => {
    const row: Row = {};
    record.forEach((field, i) => { row[names[i] ?? `?column${i + 1}?`] = fieldValue(field, columns[i]); });
    return row as R;
  });
  return { rows, rowCount: rows.length };
}
