import { sql, type SqlStatement } from '../sql/sql.js';

/** A claimed key's row, as `claimedKeysStatement` reads it. */
export interface ClaimedKeyRow {
  readonly message_id: string;
  readonly payload_hash: string;
  readonly status: string;
}

/**
 * Reads, in one statement, which of a consumer's keys are claimed already, with each row's hash and
 * status (to tell a duplicate from a collision). The keys go as one JSON value: the Data API binds
 * no arrays, and one text serves every width.
 *
 * @example
 * ```ts
 * const { rows } = await db.query<ClaimedKeyRow>(claimedKeysStatement('orders', ['k1', 'k2']));
 * ```
 */
export function claimedKeysStatement(consumer: string, keys: readonly string[]): SqlStatement {
  return sql`SELECT message_id, payload_hash, status FROM consumed_message
WHERE consumer_name = ${consumer} AND message_id IN (SELECT jsonb_array_elements_text(${sql.json(keys)}::jsonb))`;
}
