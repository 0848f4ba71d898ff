import type { Database, Transaction } from '../../database/database.js';
import { sql, type SqlStatement } from '../../sql/sql.js';
import { OperatorCommandError } from '../errors.js';
import { countOf, stringOf, stringsOf, timeOf, type OptionSpec, type OptionValues } from './arguments.js';
import type { CommandResult } from './cli-io.js';
import { inChunks, whereAll, type Command } from './command.js';
import { CHANGE_OPTIONS } from './confirm.js';
import type { Progress } from './progress.js';
import { changeRows } from './row-change.js';
import { textTable } from './table.js';

const FILTERS: Readonly<Record<string, OptionSpec>> = {
  consumer: { type: 'string', description: 'only this consumer\'s rows' },
  target: { type: 'string', description: 'only rows for this target' },
  reason: { type: 'string', description: 'only rows whose error contains this text' },
  since: { type: 'string', description: 'written at or after: a duration back (30m, 6h, 7d) or a date' },
  key: { type: 'string', description: 'only rows written for this incoming key' },
  id: { type: 'string', multiple: true, description: 'only this row (repeat for more)' },
  limit: { type: 'string', description: 'at most this many, oldest first (default 100)' },
};

const STATES: Readonly<Record<string, SqlStatement>> = {
  failed: sql`failed_at IS NOT NULL`,
  open: sql`dispatched_at IS NULL AND failed_at IS NULL`,
  dispatched: sql`dispatched_at IS NOT NULL`,
  all: sql`true`,
};

/** An outbox row as the listing shows it (no body: `show KEY` and the database have it). */
interface OutboxListed { id: string; consumer: string; key: string; target: string; group_id: string | null; group_seq: string | null; state: string; attempts: number; created_at: string; error: string | null }

const COLUMNS = ['id', 'consumer', 'key', 'target', 'group_id', 'group_seq', 'state', 'attempts', 'created_at', 'error'];

function filtersOf(values: OptionValues): SqlStatement[] {
  const given = (name: string) => stringOf(values, name);
  const ids = stringsOf(values, 'id');
  for (const id of ids) if (!/^[0-9a-f-]{36}$/i.test(id)) throw new OperatorCommandError(`--id ${JSON.stringify(id)} is not an outbox row's id: give its uuid, as \`sqs-inbox outbox list\` shows it.`);
  return [
    ...(given('consumer') === undefined ? [] : [sql`consumer_name = ${given('consumer')!}`]),
    ...(given('target') === undefined ? [] : [sql`target = ${given('target')!}`]),
    ...(given('reason') === undefined ? [] : [sql`position(${given('reason')!} IN coalesce(error, '')) > 0`]),
    ...(given('since') === undefined ? [] : [sql`created_at >= ${timeOf(given('since')!, 'since')}`]),
    ...(given('key') === undefined ? [] : [sql`message_key = ${given('key')!}`]),
    ...(ids.length === 0 ? [] : [sql`id IN (SELECT jsonb_array_elements_text(${sql.json(ids)}::jsonb)::uuid)`]),
  ];
}

const outboxTable = (rows: readonly OutboxListed[]) => textTable(rows as unknown as Record<string, unknown>[], COLUMNS);

async function outboxRows(db: Database | Transaction, where: readonly SqlStatement[], limit: number, lock = false): Promise<OutboxListed[]> {
  const { rows } = await db.query<OutboxListed>(sql`SELECT id::text AS id, consumer_name AS consumer, message_key AS key, target, group_id, group_seq::text AS group_seq,
    CASE WHEN dispatched_at IS NOT NULL THEN 'dispatched' WHEN failed_at IS NOT NULL THEN 'failed' ELSE 'open' END AS state,
    attempts, to_json(created_at)#>>'{}' AS created_at, error
    FROM outbox_message ${whereAll(where)} ORDER BY consumer_name, target, group_id, group_seq, created_at, id LIMIT ${limit}${lock ? sql` FOR UPDATE` : sql``}`);
  return rows.map((row) => ({ ...row, attempts: Number(row.attempts) }));
}

/** `sqs-inbox outbox list`: outbox rows, the failed ones unless `--state` says otherwise. */
export const outboxListCommand: Command = {
  name: 'outbox list',
  summary: 'outbox rows: the failed ones by default, or open, dispatched, all',
  usage: '',
  options: { ...FILTERS, state: { type: 'string', description: 'failed, open, dispatched or all (default failed)' } },
  async run({ values, db }): Promise<CommandResult> {
    const state = stringOf(values, 'state') ?? 'failed';
    const chosen = STATES[state];
    if (chosen === undefined) throw new OperatorCommandError(`--state ${JSON.stringify(state)} is not a state: give failed, open, dispatched or all.`);
    const rows = await outboxRows(db, [chosen, ...filtersOf(values)], countOf(stringOf(values, 'limit') ?? '100', 'limit'));
    return { json: { rows }, text: outboxTable(rows), exitCode: 0 };
  },
};

/**
 * Opens failed rows again, in one transaction with their audit row: the failed mark and any lease
 * cleared, each FIFO group's open count raised by its reopened rows (the group made again, at least
 * at their place, when the cleanup purged it idle), so the relay sends them with their own id, a
 * group's rows in their `group_seq` order before the group's later open rows.
 */
async function reopen(tx: Transaction, rows: readonly OutboxListed[], progress: Progress): Promise<void> {
  await inChunks(rows, 500, (chunk) => reopenChunk(tx, chunk), progress);
}

async function reopenChunk(tx: Transaction, rows: readonly OutboxListed[]): Promise<void> {
  const ids = sql.json(rows.map((row) => row.id));
  await tx.query(sql`UPDATE outbox_message SET failed_at = NULL, claimed_by = NULL, claimed_until = NULL
    WHERE id IN (SELECT jsonb_array_elements_text(${ids}::jsonb)::uuid) AND failed_at IS NOT NULL`);
  await tx.query(sql`INSERT INTO outbox_group AS g (consumer_name, target, group_id, next_seq, open_rows)
    SELECT consumer_name, target, group_id, max(group_seq), count(*)::int FROM outbox_message
    WHERE id IN (SELECT jsonb_array_elements_text(${ids}::jsonb)::uuid) AND group_seq IS NOT NULL
    GROUP BY consumer_name, target, group_id
    ON CONFLICT (consumer_name, target, group_id) DO UPDATE SET
      open_rows = g.open_rows + excluded.open_rows, touched_at = now()`);
}

/** `sqs-inbox outbox retry`: failed rows sent again by the relay, with their id and their group's order. */
export const outboxRetryCommand: Command = {
  name: 'outbox retry',
  summary: 'opens failed outbox rows again for the relay: each keeps its id and its FIFO group\'s order',
  usage: '',
  options: { ...FILTERS, ...CHANGE_OPTIONS },
  run(context): Promise<CommandResult> {
    const where = [STATES.failed!, ...filtersOf(context.values)];
    const limit = countOf(stringOf(context.values, 'limit') ?? '100', 'limit');
    return changeRows(context, {
      command: 'outbox retry', confirm: 'retry failed outbox rows', flags: Object.keys(FILTERS),
      read: (db, lock) => outboxRows(db, where, limit, lock),
      apply: reopen,
      subject: (rows) => ({ ids: rows.map((row) => row.id) }),
      table: outboxTable,
      names: { would: 'wouldRetry', done: 'retried' },
      words: { would: (count) => `Would retry ${count} failed outbox rows`, done: (count) => `${count} failed outbox rows opened again; the relay sends them on its next run`, none: 'Nothing retried.' },
    });
  },
};

/** The states a purge may delete: never an open row, which is the relay's (or its writer's) to send. */
const PURGEABLE = ['failed', 'dispatched'];

/**
 * `sqs-inbox outbox purge`: deletes failed rows (or, with `--state dispatched`, dispatched ones
 * before the cleanup would) that the filters select, in one transaction with its audit row. A
 * failed row already gave up its place in its FIFO group (the group went on past it, and its open
 * count does not count it), so deleting it leaves the group's numbering and count as they are;
 * what it gives up is a later `outbox retry`. Open rows are refused: they are the relay's to send.
 */
export const outboxPurgeCommand: Command = {
  name: 'outbox purge',
  summary: 'deletes failed outbox rows (or dispatched ones) the filters select: never sent again',
  usage: '',
  options: { ...FILTERS, state: { type: 'string', description: 'failed or dispatched (default failed)' }, ...CHANGE_OPTIONS },
  run(context): Promise<CommandResult> {
    const state = stringOf(context.values, 'state') ?? 'failed';
    if (!PURGEABLE.includes(state)) {
      throw new OperatorCommandError(`--state ${JSON.stringify(state)} cannot be purged: give failed or dispatched (an open row is the relay's to send; \`sqs-inbox outbox list --state open\` shows them).`);
    }
    const where = [STATES[state]!, ...filtersOf(context.values)];
    const limit = countOf(stringOf(context.values, 'limit') ?? '100', 'limit');
    return changeRows(context, {
      command: 'outbox purge', confirm: `delete ${state} outbox rows for good`, flags: [...Object.keys(FILTERS), 'state'],
      read: (db, lock) => outboxRows(db, where, limit, lock),
      // A row retried since the preview is open now, and stays.
      apply: (tx, rows, progress) => inChunks(rows.map((row) => row.id), 500, (ids) => tx.query(sql`DELETE FROM outbox_message
        WHERE id IN (SELECT jsonb_array_elements_text(${sql.json(ids)}::jsonb)::uuid) AND (failed_at IS NOT NULL OR dispatched_at IS NOT NULL)`), progress),
      subject: (rows) => ({ ids: rows.map((row) => row.id) }),
      table: outboxTable,
      names: { would: 'wouldPurge', done: 'purged' },
      words: { would: (count) => `Would purge ${count} ${state} outbox rows`, done: (count) => `${count} ${state} outbox rows purged`, none: 'Nothing purged.' },
    });
  },
};
