import { sql, type SqlStatement } from '../sql/sql.js';

/**
 * The size of a part of a long value read through a `Database`: the Data API answers at most 64 KB
 * a row (`AWS_LIMITS.dataApi.rowBytes`), so an outbox row's payload or a kept body is read as bytes
 * in parts, never whole.
 */
export const VALUE_PART_BYTES = 32_768;

/** The bytes of parts one read holds at most: 512 KiB, about 700 KB in base64, within the Data API's 1 MiB an answer. */
export const VALUE_READ_BYTES = 16 * VALUE_PART_BYTES;

/**
 * How many parts a value of `bytes` is read in: one at least, for an empty value.
 *
 * @example
 * ```ts
 * partsOf(70_000) // 3
 * ```
 */
export function partsOf(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / VALUE_PART_BYTES));
}

/**
 * Part `part` (from 0) of a text's UTF-8 bytes, as a `bytea` of at most `VALUE_PART_BYTES`.
 *
 * @example
 * ```ts
 * sql`SELECT ${valuePart(sql`k.body`, sql`p.part`)} AS bytes FROM kept_message k, generate_series(0, 2) AS p(part)`
 * ```
 */
export function valuePart(text: SqlStatement, part: SqlStatement): SqlStatement {
  return sql`substring(convert_to(${text}, 'UTF8') FROM (${part} * ${VALUE_PART_BYTES}::int + 1)::int FOR ${VALUE_PART_BYTES}::int)`;
}

/**
 * The text of a value's parts, in order (a part read as null is empty).
 *
 * @example
 * ```ts
 * joinedParts(rows.map((row) => row.bytes)) // the kept body
 * ```
 */
export function joinedParts(parts: readonly (Uint8Array | null | undefined)[]): string {
  return Buffer.concat(parts.map((part) => part ?? new Uint8Array())).toString('utf8');
}
