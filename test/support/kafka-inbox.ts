import type pg from 'pg';
import { sql, type Database, type InboxCommonOptions, type KafkaInboxOptions, type Outcome, type OutcomeKind, type SqlStatement } from '../../functions/inbox/index.js';
import type { KafkaBatchResponse, KafkaEventRecord } from '../../local/kafka/index.js';

/** The message most Kafka inbox tests ship: one order by id. */
export type Ship = { orderId: string };

/** How a record's effect is applied. */
export type Mode = 'statement' | 'transaction';

export const MODES: readonly Mode[] = ['statement', 'transaction'];

/** The shipping effect: bumps the order's version, so how often it was applied can be read back. */
export const shipStatement = (orderId: string): SqlStatement =>
  sql`UPDATE orders SET status = 'shipped', version = version + 1 WHERE order_id = ${sql.uuid(orderId)}`;

/** Kafka inbox options that ship each order in `mode`, pushing every outcome to `outcomes`. */
export function shipOptions(
  db: Database, consumer: string, outcomes: Outcome[], mode: Mode,
  extra: Partial<Omit<InboxCommonOptions<Ship, KafkaEventRecord>, 'db' | 'consumer'>> = {},
): KafkaInboxOptions<Ship> {
  const common = { consumer, db, onOutcome: (o: Outcome) => outcomes.push(o), ...extra };
  return mode === 'statement'
    ? { ...common, statement: (m) => shipStatement(m.orderId) }
    : { ...common, handle: async (m, { tx }) => { await tx.query(shipStatement(m.orderId)); } };
}

/** The messageId an Outcome names a Kafka record by: `<topic>-<partition>@<offset>`. */
export const kafkaMessageId = (record: KafkaEventRecord): string => `${record.topic}-${record.partition}@${record.offset}`;

/** The default inbox key of a record without an `idempotency-key` header: `<topic>:<partition>:<offset>`. */
export const offsetKey = (record: KafkaEventRecord): string => `${record.topic}:${record.partition}:${record.offset}`;

/** The same record again, as Lambda hands it to a later invocation (same topic, partition, offset, value). */
export function redelivered(record: KafkaEventRecord): KafkaEventRecord {
  return { ...record, headers: record.headers.map((header) => ({ ...header })) };
}

/** The outcome kind of each record, in the order of `records` (undefined for a record without one). */
export function kindsOf(records: readonly KafkaEventRecord[], outcomes: readonly Outcome[]): (OutcomeKind | undefined)[] {
  const byId = new Map(outcomes.map((o) => [o.messageId, o.kind]));
  return records.map((record) => byId.get(kafkaMessageId(record)));
}

/** The records a response names, as `<topic>-<partition>@<offset>`, in the response's order. */
export function namedIds(response: KafkaBatchResponse): string[] {
  return response.batchItemFailures.map(({ itemIdentifier }) => `${itemIdentifier.partition}@${itemIdentifier.offset}`);
}

/** The log table some tests append to inside the claim's transaction, so commits can be read back in order. */
export async function createKafkaLog(pool: pg.Pool): Promise<void> {
  await pool.query(`CREATE TABLE IF NOT EXISTS kafka_log (
    id bigserial PRIMARY KEY, consumer text NOT NULL, topic text NOT NULL, part int NOT NULL, record_offset bigint NOT NULL)`);
}

/** The appends of the log table for a consumer, in commit order, as `<topic>-<partition>@<offset>`. */
export async function loggedIds(pool: pg.Pool, consumer: string): Promise<string[]> {
  const { rows } = await pool.query<{ record_id: string }>(
    "SELECT topic || '-' || part || '@' || record_offset AS record_id FROM kafka_log WHERE consumer = $1 ORDER BY id", [consumer]);
  return rows.map((row) => row.record_id);
}

/** The statement that appends a record to the log table. */
export const logStatement = (consumer: string, record: KafkaEventRecord): SqlStatement =>
  sql`INSERT INTO kafka_log (consumer, topic, part, record_offset) VALUES (${consumer}, ${record.topic}, ${record.partition}, ${record.offset})`;
