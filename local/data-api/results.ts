import pg from 'pg';
import { AWS_LIMITS } from '../../functions/inbox/internal.js';
import type { ColumnType } from './column-types.js';
import { badRequest } from './service-errors.js';

/** The service's cap on a response. */
export const MAX_RESPONSE_BYTES = AWS_LIMITS.dataApi.responseBytes;

/** The bytes of a value as the database returns it: a bytea's bytes, not its hex text. */
function valueBytes(text: unknown, type: ColumnType): number {
  if (text === null || text === undefined) return 0;
  const value = String(text);
  return type.typeName === 'bytea' && value.startsWith('\\x') ? (value.length - 2) / 2 : Buffer.byteLength(value, 'utf8');
}

/**
 * Refuses a result with a row over the service's 64 KB a row, as the service refuses it (read a
 * long value in parts: `substring(... FROM n FOR 32768)`).
 */
function checkRowSizes(rows: readonly unknown[][], types: readonly ColumnType[]): void {
  for (const row of rows) {
    const bytes = row.reduce<number>((sum, value, i) => sum + valueBytes(value, types[i]!), 0);
    if (bytes > AWS_LIMITS.dataApi.rowBytes) throw badRequest(`Database returned a row of ${bytes} bytes, more than the allowed ${AWS_LIMITS.dataApi.rowBytes} bytes a row`);
  }
}

/** How the request asked for results. */
export interface ResultOptions {
  readonly includeResultMetadata: boolean;
  readonly formatRecordsAs: 'NONE' | 'JSON';
  readonly longReturnType: 'LONG' | 'STRING';
  readonly decimalReturnType: 'STRING' | 'DOUBLE_OR_LONG';
}

/** A Data API Field, as JSON. */
type Field = Record<string, unknown>;

// The parser of text[] (oid 1009) splits any array's text into its element texts, nested arrays
// nested and NULL as null. pg-types parses array oids but its TypeId enum lists only scalars.
const TEXT_ARRAY_OID = 1009;
const parseArrayText = (pg.types.getTypeParser as (oid: number) => (text: string) => unknown[])(TEXT_ARRAY_OID);
const INTEGER_TYPES = new Set(['int2', 'int4', 'oid']);
const FLOAT_TYPES = new Set(['float4', 'float8']);
const JDBC_TYPES: Readonly<Record<string, number>> = {
  bool: -7, int2: 5, int4: 4, int8: -5, oid: -5, float4: 7, float8: 8, numeric: 2, bpchar: 1, varchar: 12,
  text: 12, name: 12, bytea: -2, date: 91, time: 92, timetz: 92, timestamp: 93, timestamptz: 93,
};

/** TIMESTAMPTZ text in a UTC session ends in `+00`; the service leaves the offset out. */
function utcTimestamp(text: string): string {
  return text.replace(/\+00(:00)?$/, '');
}

function decimalField(text: string, options: ResultOptions): Field {
  if (options.decimalReturnType === 'STRING') return { stringValue: text };
  return /^-?\d+$/.test(text) ? { longValue: Number(text) } : { doubleValue: Number(text) };
}

function scalarField(text: string, typeName: string, options: ResultOptions): Field {
  if (INTEGER_TYPES.has(typeName)) return { longValue: Number(text) };
  if (typeName === 'int8') return options.longReturnType === 'STRING' ? { stringValue: text } : { longValue: Number(text) };
  if (FLOAT_TYPES.has(typeName)) return Number.isFinite(Number(text)) ? { doubleValue: Number(text) } : { stringValue: text };
  if (typeName === 'numeric') return decimalField(text, options);
  if (typeName === 'bool') return { booleanValue: text === 't' };
  if (typeName === 'bytea') return { blobValue: Buffer.from(text.slice(2), 'hex').toString('base64') };
  if (typeName === 'timestamptz') return { stringValue: utcTimestamp(text) };
  return { stringValue: text };
}

/** An array column as an ArrayValue: one list per element kind, nested arrays as arrayValues. */
function arrayValue(elements: unknown[], elementTypeName: string): Field {
  if (elements.some(Array.isArray)) {
    return { arrayValues: elements.map((inner) => (Array.isArray(inner) ? arrayValue(inner, elementTypeName) : null)) };
  }
  const texts = elements as (string | null)[];
  if (INTEGER_TYPES.has(elementTypeName) || elementTypeName === 'int8') return { longValues: texts.map((t) => (t === null ? null : Number(t))) };
  if (FLOAT_TYPES.has(elementTypeName)) return { doubleValues: texts.map((t) => (t === null ? null : Number(t))) };
  if (elementTypeName === 'bool') return { booleanValues: texts.map((t) => (t === null ? null : t === 't')) };
  if (elementTypeName === 'timestamptz') return { stringValues: texts.map((t) => (t === null ? null : utcTimestamp(t))) };
  return { stringValues: texts };
}

/**
 * One value of a result (node-postgres gives every value as its text) as a Data API Field.
 *
 * @example
 * ```ts
 * toField('2024-05-01 12:00:00.5+00', { typeName: 'timestamptz', elementTypeName: undefined }, options) // { stringValue: '2024-05-01 12:00:00.5' }
 * ```
 */
export function toField(text: unknown, type: ColumnType, options: ResultOptions): Field {
  if (text === null || text === undefined) return { isNull: true };
  if (type.elementTypeName !== undefined) {
    return { arrayValue: arrayValue(parseArrayText(String(text)), type.elementTypeName) };
  }
  return scalarField(String(text), type.typeName, options);
}

/** The value of a Field as the JSON records format writes it. */
function jsonValue(field: Field): unknown {
  if (field.isNull) return null;
  if (field.arrayValue !== undefined) {
    const values = field.arrayValue as Record<string, unknown>;
    return Object.values(values)[0];
  }
  return Object.values(field)[0];
}

/**
 * columnMetadata of a result, as the service (through JDBC) describes columns.
 *
 * @example
 * ```ts
 * columnMetadata([{ name: 'n' } as pg.FieldDef], [{ typeName: 'int4', elementTypeName: undefined }])[0].type // 4
 * ```
 */
export function columnMetadata(fields: readonly pg.FieldDef[], types: readonly ColumnType[]): Record<string, unknown>[] {
  return fields.map((field, i) => {
    const type = types[i]!;
    return {
      name: field.name,
      label: field.name,
      type: type.elementTypeName !== undefined ? 2003 : JDBC_TYPES[type.typeName] ?? 1111,
      typeName: type.typeName,
      schemaName: '',
      tableName: '',
      isAutoIncrement: false,
      isSigned: INTEGER_TYPES.has(type.typeName) || FLOAT_TYPES.has(type.typeName) || ['int8', 'numeric'].includes(type.typeName),
      isCurrency: type.typeName === 'money',
      isCaseSensitive: ['text', 'varchar', 'bpchar', 'name'].includes(type.typeName),
      nullable: 2,
      precision: field.dataTypeSize > 0 ? field.dataTypeSize : 0,
      scale: 0,
      arrayBaseColumnType: 0,
    };
  });
}

/** What ran, as the Execute operation reports it. */
export interface StatementOutcome {
  readonly command: string | null;
  readonly rowCount: number | null;
  readonly fields: readonly pg.FieldDef[];
  readonly rows: readonly unknown[][];
}

/**
 * The ExecuteStatement response body of a statement. A statement that returns rows reports them
 * (as typed records, or as one JSON string for a SELECT with `formatRecordsAs: 'JSON'`) and 0 rows
 * updated; one that does not reports the rows it changed.
 *
 * @example
 * ```ts
 * executeResponse({ command: 'UPDATE', rowCount: 2, fields: [], rows: [] }, [], options) // { numberOfRecordsUpdated: 2, generatedFields: [] }
 * ```
 */
export function executeResponse(outcome: StatementOutcome, types: readonly ColumnType[], options: ResultOptions): Record<string, unknown> {
  if (outcome.fields.length === 0) {
    const changes = ['INSERT', 'UPDATE', 'DELETE', 'MERGE'].includes(outcome.command ?? '') ? outcome.rowCount ?? 0 : 0;
    return { numberOfRecordsUpdated: changes, generatedFields: [] };
  }
  checkRowSizes(outcome.rows, types);
  const records = outcome.rows.map((row) => row.map((value, i) => toField(value, types[i]!, options)));
  const response: Record<string, unknown> = { numberOfRecordsUpdated: 0 };
  if (options.formatRecordsAs === 'JSON' && outcome.command === 'SELECT') {
    const names = outcome.fields.map((field) => field.name);
    response.formattedRecords = JSON.stringify(records.map((record) => Object.fromEntries(record.map((field, i) => [names[i], jsonValue(field)]))));
  } else {
    response.records = records;
  }
  if (options.includeResultMetadata) response.columnMetadata = columnMetadata(outcome.fields, types);
  return response;
}

/**
 * The response as sent, refused when it is over the service's 1 MiB cap.
 *
 * @example
 * ```ts
 * const body = cappedBody({ numberOfRecordsUpdated: 1 }); // '{"numberOfRecordsUpdated":1}'
 * ```
 */
export function cappedBody(response: Record<string, unknown>, maxBytes = MAX_RESPONSE_BYTES): string {
  const body = JSON.stringify(response);
  if (Buffer.byteLength(body) > maxBytes) throw badRequest('Database returned more than the allowed response size limit');
  return body;
}
