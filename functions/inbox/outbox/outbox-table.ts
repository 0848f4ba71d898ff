import { valuePart } from '../database/value-parts.js';
import { sql, type SqlStatement } from '../sql/sql.js';
import type { PreparedMessage } from './outbox-message.js';

/** A row to write: its id, its target and its message as the target checked it. */
export interface RowToWrite {
  readonly id: string;
  readonly target: string;
  /** The target keeps a group's order (FIFO): the row is numbered in its group. */
  readonly ordered: boolean;
  readonly message: PreparedMessage;
  /** The writing span's context as a W3C traceparent, sent on with the row. */
  readonly traceparent?: string;
}

/** Who writes rows, for which incoming message, and the lease they are written under. */
export interface WriteLease {
  readonly consumer: string;
  /** The incoming message's idempotency key. */
  readonly key: string;
  /** The writing invocation: its lease lets it send the rows after the commit. */
  readonly holder: string;
  /** How long the lease lasts: the invocation's remaining time. */
  readonly leaseMs: number;
}

/** What a write answers for each row: whether it is leased to the writer, and its place in its group. */
export interface WrittenRow {
  readonly id: string;
  readonly groupSeq: number | null;
  readonly leased: boolean;
}

/** A row a relay run leased, without its body and attributes (read in parts, see `payloadStatement`). */
export interface LeasedRow {
  readonly id: string;
  readonly consumer: string;
  readonly target: string;
  readonly groupId: string | undefined;
  readonly groupSeq: number | null;
  readonly detailType: string | undefined;
  /** The message's size as its target counts it. */
  readonly sizeBytes: number;
  /** Bytes of the attributes' JSON, a newline and the body, as `payloadStatement` reads them. */
  readonly payloadBytes: number;
  /** The writing span's context, when one was traced. */
  readonly traceparent: string | undefined;
}

/** A group whose open rows someone sends. */
export interface HeldGroup {
  readonly consumer: string;
  readonly target: string;
  readonly groupId: string;
}

/** What one holder's mark statement records. */
export interface Marks {
  readonly holder: string;
  readonly sent: readonly string[];
  readonly refused: readonly { readonly id: string; readonly reason: string }[];
  /** Rows that did not go, with the reason of their last try; they stay leased. */
  readonly left: readonly { readonly id: string; readonly reason: string }[];
  /** Groups the holder held, and whether it lets them go (nothing of its own left in them). */
  readonly groups: readonly (HeldGroup & { readonly release: boolean })[];
}

/** Neither dispatched nor failed, of the row named `alias` (the table itself when none). */
function openRow(alias?: string): SqlStatement {
  const of = alias === undefined ? sql`` : sql`${sql.identifier(alias)}.`;
  return sql`${of}dispatched_at IS NULL AND ${of}failed_at IS NULL`;
}
const leaseEnd = (ms: number) => sql`clock_timestamp() + make_interval(secs => ${Math.max(ms, 0) / 1000})`;

/** `a, b, c` of the fragments. */
function commaList(parts: readonly SqlStatement[]): SqlStatement {
  return parts.slice(1).reduce((list, part) => sql`${list}, ${part}`, parts[0] ?? sql``);
}

function valuesOfRows(rows: readonly RowToWrite[]): SqlStatement {
  return commaList(rows.map((row, ordinal) => sql`(${sql.uuid(row.id)}::uuid, ${row.target}::text, ${row.message.body}::text,
    ${sql.json(row.message.attributes)}::jsonb, ${row.message.groupId ?? null}::text, ${row.ordered && row.message.groupId !== undefined}::boolean,
    ${row.message.detailType ?? null}::text, ${row.message.sizeBytes}::int, ${ordinal}::int, ${row.traceparent ?? null}::text)`));
}

/**
 * The CTEs that write rows: each FIFO group's row upserted once (numbering the rows in commit order
 * under its row lock), then the rows. A group is leased to the writer, and its rows with it, only
 * when every open row of the group is already the writer's own (none at all, or the writer holds
 * the group and nobody else wrote there since): a row that waits behind another's open row of its
 * group is not leased, nor is any row after it, so the writer never sends past another's unsent
 * row. The writer's own open rows are counted in the statement's snapshot, which always holds
 * them (its earlier writes committed or are its own), while `open_rows` is read from the locked,
 * latest group row; a count the snapshot misses only leaves a row to the relay. With `gate` (the
 * claim's RETURNING) nothing is written unless the claim is fresh: no group is locked for a
 * duplicate. `outbox_insert` answers each row's id, place and lease.
 *
 * @example
 * ```ts
 * sql`WITH ${writeCtes(rows, lease)} SELECT id, group_seq, leased FROM outbox_insert`
 * ```
 */
export function writeCtes(rows: readonly RowToWrite[], lease: WriteLease, gate?: SqlStatement): SqlStatement {
  const gated = gate === undefined ? sql`` : sql` CROSS JOIN ${gate}`;
  const until = leaseEnd(lease.leaseMs);
  const counted = (what: SqlStatement) => sql`(SELECT ${what} FROM outbox_counts c WHERE c.target = g.target AND c.group_id = g.group_id)`;
  // Before the update: the group is open only with the writer's rows, and free or the writer's.
  const takes = sql`(g.open_rows = ${counted(sql`c.mine`)}
    AND (g.open_rows = 0 OR (g.holder = excluded.holder AND g.held_until > clock_timestamp())))`;
  return sql`outbox_rows (id, target, body, attributes, group_id, ordered, detail_type, size_bytes, ordinal, trace_parent) AS (VALUES ${valuesOfRows(rows)}),
outbox_counts AS (
  SELECT r.target, r.group_id, count(*) AS written,
    (SELECT count(*) FROM outbox_message m WHERE m.consumer_name = ${lease.consumer} AND m.target = r.target AND m.group_id = r.group_id
      AND m.group_seq IS NOT NULL AND ${openRow('m')} AND m.claimed_by = ${lease.holder}) AS mine
  FROM outbox_rows r WHERE r.ordered GROUP BY r.target, r.group_id
),
outbox_groups AS (
  INSERT INTO outbox_group AS g (consumer_name, target, group_id, next_seq, open_rows, holder, held_until)
  SELECT ${lease.consumer}, c.target, c.group_id, c.written, c.written, ${lease.holder}, ${until}
  FROM outbox_counts c${gated}
  ON CONFLICT (consumer_name, target, group_id) DO UPDATE SET
    next_seq = g.next_seq + excluded.next_seq,
    open_rows = g.open_rows + excluded.open_rows,
    holder = CASE WHEN ${takes} THEN excluded.holder ELSE g.holder END,
    held_until = CASE WHEN ${takes} THEN excluded.held_until ELSE g.held_until END,
    touched_at = now()
  RETURNING g.target, g.group_id, g.next_seq,
    (g.holder = ${lease.holder} AND g.held_until > clock_timestamp() AND g.open_rows = ${counted(sql`c.written + c.mine`)}) AS leased
),
outbox_insert AS (
  INSERT INTO outbox_message (id, consumer_name, message_key, target, body, attributes, group_id, group_seq, detail_type, size_bytes, trace_parent, claimed_by, claimed_until)
  SELECT r.id, ${lease.consumer}, ${lease.key}, r.target, r.body, r.attributes, r.group_id,
    CASE WHEN r.ordered THEN g.next_seq - count(*) OVER w + row_number() OVER (w ORDER BY r.ordinal) END,
    r.detail_type, r.size_bytes, r.trace_parent,
    CASE WHEN NOT r.ordered OR g.leased THEN ${lease.holder} END,
    CASE WHEN NOT r.ordered OR g.leased THEN ${until} END
  FROM outbox_rows r${gated}
  LEFT JOIN outbox_groups g ON g.target = r.target AND g.group_id = r.group_id
  WINDOW w AS (PARTITION BY r.target, r.group_id)
  RETURNING id, group_seq, claimed_by IS NOT NULL AS leased
)`;
}

/**
 * Transaction mode: one `send`'s row as a statement of the claim's transaction.
 *
 * @example
 * ```ts
 * const { rows } = await tx.query<WrittenRowRecord>(writeStatement([row], lease));
 * ```
 */
export function writeStatement(rows: readonly RowToWrite[], lease: WriteLease): SqlStatement {
  return sql`WITH ${writeCtes(rows, lease)}
SELECT id, group_seq, leased FROM outbox_insert`;
}

/** Statement mode: the written rows as one JSON column of the guarded statement, `[[id, group_seq, leased], ...]`. */
export const WRITTEN_ROWS_COLUMN = sql`(SELECT coalesce(json_agg(json_build_array(id, group_seq, leased)), '[]'::json) FROM outbox_insert) AS outbox_written`;

/**
 * Batched statement mode: the place of written rows and whether they are leased to `holder`, read
 * after their batch committed (BatchExecuteStatement answers no rows).
 *
 * @example
 * ```ts
 * const { rows } = await db.query<WrittenRowRecord>(writtenRowsStatement([id], holder));
 * ```
 */
export function writtenRowsStatement(ids: readonly string[], holder: string): SqlStatement {
  return sql`SELECT id::text AS id, group_seq, coalesce(claimed_by = ${holder}, false) AS leased FROM outbox_message
WHERE id IN (SELECT jsonb_array_elements_text(${sql.json(ids)}::jsonb)::uuid)`;
}

/** A written row as a driver returns it (group_seq is int8: a string). */
export type WrittenRowRecord = { id: string; group_seq: string | number | null; leased: boolean };

/**
 * A written row from either form of the write's answer.
 *
 * @example
 * ```ts
 * writtenRow(['0190...', 3, true]) // { id: '0190...', groupSeq: 3, leased: true }
 * ```
 */
export function writtenRow(record: WrittenRowRecord | readonly [string, number | null, boolean]): WrittenRow {
  const [id, seq, leased] = Array.isArray(record) ? record : [(record as WrittenRowRecord).id, (record as WrittenRowRecord).group_seq, (record as WrittenRowRecord).leased];
  return { id: String(id), groupSeq: seq === null || seq === undefined ? null : Number(seq), leased: leased === true };
}

/**
 * One holder's marks in one statement: sent rows dispatched, refused rows failed with their reason,
 * left rows noted with the reason of their last try (and still leased), each FIFO group's open count
 * lowered by the rows it closed, and the groups the holder lets go released. Only rows the holder
 * still leases are marked, each once.
 *
 * @example
 * ```ts
 * await db.query(markStatement({ holder, sent: [id], refused: [], left: [], groups: [] }));
 * ```
 */
export function markStatement(marks: Marks): SqlStatement {
  const mine = (alias?: string) => sql`${alias === undefined ? sql`` : sql`${sql.identifier(alias)}.`}claimed_by = ${marks.holder} AND ${openRow(alias)}`;
  const closers: SqlStatement[] = [];
  const ctes: SqlStatement[] = [];
  if (marks.sent.length > 0) {
    ctes.push(sql`sent AS (
  UPDATE outbox_message SET dispatched_at = now(), claimed_until = NULL, error = NULL
  WHERE id IN (${commaList(marks.sent.map((id) => sql`${sql.uuid(id)}::uuid`))}) AND ${mine()}
  RETURNING consumer_name, target, group_id, group_seq)`);
    closers.push(sql`SELECT * FROM sent`);
  }
  if (marks.refused.length > 0) {
    ctes.push(sql`refused AS (
  UPDATE outbox_message m SET failed_at = now(), claimed_until = NULL, error = f.reason
  FROM (VALUES ${commaList(marks.refused.map(({ id, reason }) => sql`(${sql.uuid(id)}::uuid, ${reason}::text)`))}) AS f(id, reason)
  WHERE m.id = f.id AND ${mine('m')}
  RETURNING m.consumer_name, m.target, m.group_id, m.group_seq)`);
    closers.push(sql`SELECT * FROM refused`);
  }
  if (marks.left.length > 0) {
    ctes.push(sql`noted AS (
  UPDATE outbox_message m SET error = f.reason
  FROM (VALUES ${commaList(marks.left.map(({ id, reason }) => sql`(${sql.uuid(id)}::uuid, ${reason}::text)`))}) AS f(id, reason)
  WHERE m.id = f.id AND ${mine('m')})`);
  }
  if (marks.groups.length > 0) {
    const closed = closers.length === 0
      ? sql`SELECT NULL::text AS consumer_name, NULL::text AS target, NULL::text AS group_id, 0 AS n WHERE false`
      : sql`SELECT consumer_name, target, group_id, count(*)::int AS n FROM (${closers.slice(1).reduce((all, next) => sql`${all} UNION ALL ${next}`, closers[0]!)}) AS c
  WHERE group_seq IS NOT NULL GROUP BY consumer_name, target, group_id`;
    ctes.push(sql`closed AS (${closed}),
groups AS (
  UPDATE outbox_group g SET
    open_rows = g.open_rows - coalesce(c.n, 0),
    holder = CASE WHEN t.release AND g.holder = ${marks.holder} THEN NULL ELSE g.holder END,
    held_until = CASE WHEN t.release AND g.holder = ${marks.holder} THEN NULL ELSE g.held_until END,
    touched_at = now()
  FROM (VALUES ${commaList(marks.groups.map((group) => sql`(${group.consumer}::text, ${group.target}::text, ${group.groupId}::text, ${group.release}::boolean)`))})
    AS t(consumer_name, target, group_id, release)
  LEFT JOIN closed c ON c.consumer_name = t.consumer_name AND c.target = t.target AND c.group_id = t.group_id
  WHERE g.consumer_name = t.consumer_name AND g.target = t.target AND g.group_id = t.group_id)`);
  }
  const count = (name: string, present: boolean) => (present ? sql`(SELECT count(*)::int FROM ${sql.identifier(name)})` : sql`0`);
  const select = sql`SELECT ${count('sent', marks.sent.length > 0)} AS sent, ${count('refused', marks.refused.length > 0)} AS refused`;
  return ctes.length === 0 ? select : sql`WITH ${commaList(ctes)}
${select}`;
}

/** What a relay run leases in one pass. */
export interface LeaseRequest {
  readonly consumer: string;
  readonly targets: readonly string[];
  readonly holder: string;
  readonly leaseMs: number;
  readonly graceMs: number;
  /** Rows of FIFO groups, and unordered rows, each at most this many. */
  readonly batchSize: number;
}

/**
 * A relay pass's lease, one statement. FIFO groups nobody holds (or whose holder's lease ran out)
 * and whose oldest open row is older than the grace period are held for the run, `FOR UPDATE SKIP
 * LOCKED`, oldest first; their open rows are leased from the head of each group, so what is leased
 * of a group is always its next rows in order. Unordered rows past the grace period whose lease ran
 * out are leased `FOR UPDATE SKIP LOCKED`, oldest first. Two relays never lease one row or hold one
 * group. Answers the leased rows, and each held group once more with no id.
 *
 * @example
 * ```ts
 * const { rows } = await db.query<LeaseRecord>(leaseStatement({ consumer, targets: ['shipped'], holder, leaseMs: 60_000, graceMs: 30_000, batchSize: 100 }));
 * ```
 */
export function leaseStatement(request: LeaseRequest): SqlStatement {
  const until = leaseEnd(request.leaseMs);
  const targets = commaList(request.targets.map((target) => sql`${target}::text`));
  const graceEnd = sql`now() - make_interval(secs => ${request.graceMs / 1000})`;
  const sameGroup = sql`m.consumer_name = g.consumer_name AND m.target = g.target AND m.group_id = g.group_id AND m.group_seq IS NOT NULL AND ${openRow('m')}`;
  const returned = sql`m.id, m.consumer_name, m.target, m.group_id, m.group_seq, m.detail_type, m.size_bytes, m.trace_parent,
    octet_length(m.attributes::text) + 1 + octet_length(m.body) AS payload_bytes`;
  return sql`WITH free_groups AS (
  SELECT g.consumer_name, g.target, g.group_id FROM outbox_group g
  WHERE g.consumer_name = ${request.consumer} AND g.target IN (${targets}) AND g.open_rows > 0
    AND (g.holder IS NULL OR g.held_until < now())
    AND (SELECT min(m.created_at) FROM outbox_message m WHERE ${sameGroup}) < ${graceEnd}
  ORDER BY (SELECT min(m.created_at) FROM outbox_message m WHERE ${sameGroup})
  LIMIT ${request.batchSize}
  FOR UPDATE OF g SKIP LOCKED
),
held AS (
  UPDATE outbox_group g SET holder = ${request.holder}, held_until = ${until}, touched_at = now()
  FROM free_groups f WHERE g.consumer_name = f.consumer_name AND g.target = f.target AND g.group_id = f.group_id
  RETURNING g.consumer_name, g.target, g.group_id
),
group_heads AS (
  SELECT id FROM (
    SELECT m.id, m.created_at, row_number() OVER (PARTITION BY m.target, m.group_id ORDER BY m.group_seq) AS place
    FROM outbox_message m JOIN held g ON ${sameGroup}
  ) AS ranked
  ORDER BY place, created_at
  LIMIT ${request.batchSize}
),
grouped AS (
  UPDATE outbox_message m SET claimed_by = ${request.holder}, claimed_until = ${until}, attempts = m.attempts + 1
  FROM group_heads h WHERE m.id = h.id AND ${openRow('m')}
  RETURNING ${returned}
),
free_rows AS (
  SELECT id FROM outbox_message
  WHERE consumer_name = ${request.consumer} AND target IN (${targets}) AND group_seq IS NULL AND ${openRow()}
    AND (claimed_until IS NULL OR claimed_until < now()) AND created_at < ${graceEnd}
  ORDER BY created_at, id
  LIMIT ${request.batchSize}
  FOR UPDATE SKIP LOCKED
),
unordered AS (
  UPDATE outbox_message m SET claimed_by = ${request.holder}, claimed_until = ${until}, attempts = m.attempts + 1
  FROM free_rows f WHERE m.id = f.id
  RETURNING ${returned}
)
SELECT * FROM grouped
UNION ALL SELECT * FROM unordered
UNION ALL SELECT NULL, consumer_name, target, group_id, NULL, NULL, NULL, NULL, NULL FROM held`;
}

/** A leased row or held group as a driver returns it. */
export type LeaseRecord = {
  id: string | null; consumer_name: string; target: string; group_id: string | null;
  group_seq: string | number | null; detail_type: string | null; size_bytes: number | null; trace_parent: string | null; payload_bytes: number | string | null;
};

/**
 * The rows and groups of a lease's answer.
 *
 * @example
 * ```ts
 * const { rows, groups } = leaseOf(records);
 * ```
 */
export function leaseOf(records: readonly LeaseRecord[]): { rows: LeasedRow[]; groups: HeldGroup[] } {
  const rows: LeasedRow[] = [];
  const groups: HeldGroup[] = [];
  for (const record of records) {
    if (record.id === null) {
      groups.push({ consumer: record.consumer_name, target: record.target, groupId: record.group_id ?? '' });
      continue;
    }
    rows.push({
      id: record.id,
      consumer: record.consumer_name,
      target: record.target,
      groupId: record.group_id ?? undefined,
      groupSeq: record.group_seq === null ? null : Number(record.group_seq),
      detailType: record.detail_type ?? undefined,
      sizeBytes: Number(record.size_bytes),
      payloadBytes: Number(record.payload_bytes),
      traceparent: record.trace_parent ?? undefined,
    });
  }
  return { rows, groups };
}

/**
 * Reads parts of rows' payloads (the attributes' JSON, a newline, the body) as bytes, each part at
 * most `VALUE_PART_BYTES`, so no row of the answer passes the Data API's 64 KB and a page of parts
 * stays under its 1 MiB (base64 adds a third).
 *
 * @example
 * ```ts
 * const { rows } = await db.query<{ id: string; part: number; bytes: Uint8Array }>(payloadStatement([{ id, part: 0 }]));
 * ```
 */
export function payloadStatement(parts: readonly { readonly id: string; readonly part: number }[]): SqlStatement {
  return sql`SELECT p.id::text AS id, p.part,
  ${valuePart(sql`m.attributes::text || chr(10) || m.body`, sql`p.part`)} AS bytes
FROM (VALUES ${commaList(parts.map(({ id, part }) => sql`(${sql.uuid(id)}::uuid, ${part}::int)`))}) AS p(id, part)
JOIN outbox_message m ON m.id = p.id`;
}

/**
 * The age of a consumer's oldest row neither dispatched nor failed, and how many such rows there are.
 *
 * @example
 * ```ts
 * const { rows } = await db.query<{ age_ms: number | null; open_rows: number }>(oldestOpenStatement('ship-orders'));
 * ```
 */
export function oldestOpenStatement(consumer: string): SqlStatement {
  return sql`SELECT (extract(epoch FROM now() - min(created_at)) * 1000)::float8 AS age_ms, count(*)::int AS open_rows
FROM outbox_message WHERE consumer_name = ${consumer} AND ${openRow()}`;
}
