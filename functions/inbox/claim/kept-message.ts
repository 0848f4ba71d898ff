import { KEPT_BODY_MAX_BYTES } from '../contract.js';
import { sql, type SqlStatement } from '../sql/sql.js';

/** Where a kept message came from. */
export type KeptSource = 'sqs' | 'kafka';

/** Why a message was kept: rejected, or a collision (a known key with another body). */
export type KeptAs = 'rejected' | 'collision';

/**
 * What a source keeps of a record it did not apply: its body as it came (SQS: UTF-8 text; Kafka:
 * the value in base64, as Lambda hands it over) and what a replay needs (`origin`: SQS's messageId,
 * eventSourceARN, message attributes, group and deduplication ids; Kafka's topic, partition, offset,
 * timestamp, key and headers).
 */
export interface KeptMessage {
  readonly source: KeptSource;
  readonly body: string;
  readonly encoding: 'utf8' | 'base64';
  readonly origin: Readonly<Record<string, unknown>>;
}

/** A body cut to the bound: what is kept, the original's size and the kept part's, in bytes. */
export interface KeptBody {
  readonly body: string;
  readonly bodyBytes: number;
  readonly keptBytes: number;
}

// The longest prefix of whole characters within maxBytes: a cut never splits a UTF-8 sequence.
function cutText(text: string, maxBytes: number): KeptBody {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return { body: text, bodyBytes: bytes.length, keptBytes: bytes.length };
  let end = maxBytes;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end -= 1;
  return { body: bytes.subarray(0, end).toString('utf8'), bodyBytes: bytes.length, keptBytes: end };
}

function cutBase64(value: string, maxBytes: number): KeptBody {
  const bytes = Buffer.from(value, 'base64');
  if (bytes.length <= maxBytes) return { body: value, bodyBytes: bytes.length, keptBytes: bytes.length };
  return { body: bytes.subarray(0, maxBytes).toString('base64'), bodyBytes: bytes.length, keptBytes: maxBytes };
}

/**
 * A kept message's body within `maxBytes` (of the text's UTF-8, or of a base64 value's bytes),
 * with the original's size, so a cut is said rather than silent.
 *
 * @example
 * ```ts
 * keptBody({ source: 'sqs', body: 'é'.repeat(3), encoding: 'utf8', origin: {} }, 5) // { body: 'éé', bodyBytes: 6, keptBytes: 4 }
 * ```
 */
export function keptBody(kept: KeptMessage, maxBytes: number = KEPT_BODY_MAX_BYTES): KeptBody {
  return kept.encoding === 'base64' ? cutBase64(kept.body, maxBytes) : cutText(kept.body, maxBytes);
}

/** The kept message's row, for a key: the consumer, the key, why, and the reason. */
export interface KeptRow {
  readonly consumer: string;
  readonly key: string;
  readonly keptAs: KeptAs;
  readonly reason: string;
  readonly kept: KeptMessage;
}

/**
 * `INSERT INTO kept_message ... SELECT ... FROM <from>`: a CTE's body (or a statement) that keeps
 * the message once for each row of `from` (a claim's RETURNING: one row on a fresh claim, none for
 * a taken key), so it commits or not with the row it is written beside.
 *
 * @example
 * ```ts
 * sql`WITH inbox_claim AS (...), inbox_kept AS (${keepFrom(row, sql`inbox_claim`)}) SELECT ...`
 * ```
 */
export function keepFrom(row: KeptRow, from: SqlStatement): SqlStatement {
  const { body, bodyBytes, keptBytes } = keptBody(row.kept);
  return sql`INSERT INTO kept_message (consumer_name, message_key, kept_as, reason, source, body, body_encoding, body_bytes, kept_bytes, origin)
  SELECT ${row.consumer}, ${row.key}, ${row.keptAs}, ${row.reason}, ${row.kept.source}, ${body}, ${row.kept.encoding}, ${bodyBytes}::int, ${keptBytes}::int, ${sql.json(row.kept.origin)}::jsonb
  FROM ${from}`;
}
