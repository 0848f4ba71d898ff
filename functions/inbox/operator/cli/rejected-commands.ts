import { SQSClient } from '@aws-sdk/client-sqs';
import type { Database, Transaction } from '../../database/database.js';
import { sql, type SqlStatement } from '../../sql/sql.js';
import { KeptReplayRefusedError, OperatorCommandError } from '../errors.js';
import { replayKept } from '../replay-kept.js';
import { awsClientConfig, countOf, stringOf, stringsOf, timeOf, type OptionSpec, type OptionValues } from './arguments.js';
import { auditRun, writeAudit } from './audit.js';
import type { CommandResult } from './cli-io.js';
import { inChunks, whereAll, type Command } from './command.js';
import { CHANGE_OPTIONS, confirmed } from './confirm.js';
import { progressOf } from './progress.js';
import { changeRows } from './row-change.js';
import { textTable } from './table.js';

const FILTERS: Readonly<Record<string, OptionSpec>> = {
  consumer: { type: 'string', description: 'only this consumer\'s' },
  reason: { type: 'string', description: 'only those whose reason contains this text' },
  since: { type: 'string', description: 'kept at or after: a duration back (30m, 6h, 7d) or a date' },
  until: { type: 'string', description: 'kept before: a duration back or a date' },
  key: { type: 'string', description: 'only this idempotency key' },
  id: { type: 'string', multiple: true, description: 'only this kept row (repeat for more)' },
  limit: { type: 'string', description: 'at most this many, oldest first (default 100)' },
};

/** A kept row as the listing shows it. */
interface KeptListed { id: number; consumer: string; key: string; kept_as: string; source: string; reason: string; kept_at: string; replay_state: string | null; replays: number }

const COLUMNS = ['id', 'consumer', 'key', 'kept_as', 'source', 'reason', 'kept_at', 'replay_state', 'replays'];

function filtersOf(values: OptionValues): SqlStatement[] {
  const given = (name: string) => stringOf(values, name);
  const ids = stringsOf(values, 'id').map((id) => countOf(id, 'id'));
  return [
    ...(given('consumer') === undefined ? [] : [sql`consumer_name = ${given('consumer')!}`]),
    ...(given('reason') === undefined ? [] : [sql`position(${given('reason')!} IN reason) > 0`]),
    ...(given('since') === undefined ? [] : [sql`kept_at >= ${timeOf(given('since')!, 'since')}`]),
    ...(given('until') === undefined ? [] : [sql`kept_at < ${timeOf(given('until')!, 'until')}`]),
    ...(given('key') === undefined ? [] : [sql`message_key = ${given('key')!}`]),
    ...(ids.length === 0 ? [] : [sql`id IN (SELECT jsonb_array_elements_text(${sql.json(ids)}::jsonb)::bigint)`]),
  ];
}

async function keptRows(db: Database | Transaction, where: readonly SqlStatement[], limit: number, lock = false): Promise<KeptListed[]> {
  const { rows } = await db.query<KeptListed>(sql`SELECT id::int AS id, consumer_name AS consumer, message_key AS key, kept_as, source, reason,
    to_json(kept_at)#>>'{}' AS kept_at, replay_state, replays FROM kept_message ${whereAll(where)} ORDER BY id LIMIT ${limit}${lock ? sql` FOR UPDATE` : sql``}`);
  return rows.map((row) => ({ ...row, id: Number(row.id), replays: Number(row.replays) }));
}

/** What `rejected list` (and so `rejected purge`) selects: the filters, the kind, the replayed ones with `--all`. */
function listedWhere(values: OptionValues): SqlStatement[] {
  const kind = stringOf(values, 'kind');
  if (kind !== undefined && kind !== 'rejected' && kind !== 'collision') throw new OperatorCommandError(`--kind ${JSON.stringify(kind)} is not a kind: give rejected or collision.`);
  return [
    ...filtersOf(values),
    ...(kind === undefined ? [] : [sql`kept_as = ${kind}`]),
    ...(values.all === true ? [] : [sql`replay_state IS DISTINCT FROM 'sent'`]),
  ];
}

const LIST_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  ...FILTERS,
  kind: { type: 'string', description: 'rejected or collision (default both)' },
  all: { type: 'boolean', description: 'replayed ones too' },
};

/** `sqs-inbox rejected list`: the kept rejected and collided messages, those not replayed yet unless `--all`. */
export const rejectedListCommand: Command = {
  name: 'rejected list',
  summary: 'the rejected and collided messages the inbox kept, those not replayed yet',
  usage: '',
  options: LIST_OPTIONS,
  async run({ values, db }): Promise<CommandResult> {
    const rows = await keptRows(db, listedWhere(values), countOf(stringOf(values, 'limit') ?? '100', 'limit'));
    return { json: { kept: rows }, text: textTable(rows as unknown as Record<string, unknown>[], COLUMNS), exitCode: 0 };
  },
};


type Replayed = { id: number; consumer: string; key: string; result: string; messageId?: string; error?: string };

/** `sqs-inbox rejected replay`: sends kept rejected messages back through `replayKept`, an audit row with each. */
export const rejectedReplayCommand: Command = {
  name: 'rejected replay',
  summary: 'sends rejected messages back to their queue with their original key, once the cause is fixed',
  usage: '',
  options: { ...FILTERS, ...CHANGE_OPTIONS, 'queue-url': { type: 'string', description: 'send to this queue instead of the one each came from' } },
  async run({ values, io, db }): Promise<CommandResult> {
    const where = [...filtersOf(values), sql`kept_as = 'rejected'`, sql`replay_state IS DISTINCT FROM 'sent'`];
    const rows = await keptRows(db, where, countOf(stringOf(values, 'limit') ?? '100', 'limit'));
    if (values['dry-run'] === true || rows.length === 0) {
      return { json: { dryRun: values['dry-run'] === true, wouldReplay: rows }, text: `Would replay ${rows.length} kept messages:\n${textTable(rows as unknown as Record<string, unknown>[], COLUMNS)}`, exitCode: 0 };
    }
    if (!(await confirmed(values, io, 'rejected replay', 'replay kept rejected messages', rows.length))) {
      return { json: { replayed: [] }, text: 'Nothing replayed.', exitCode: 0 };
    }
    const run = auditRun('rejected replay', io.actor);
    const filters = Object.fromEntries(Object.keys(FILTERS).filter((name) => values[name] !== undefined).map((name) => [name, values[name]]));
    const client = io.sqsClient?.() ?? new SQSClient(awsClientConfig(values));
    const queueUrl = stringOf(values, 'queue-url');
    const replayed: Replayed[] = [];
    const progress = progressOf(io, 'rejected replay', rows.length);
    for (const row of rows) {
      const base = { id: row.id, consumer: row.consumer, key: row.key };
      try {
        const result = await replayKept(db, row.id, {
          client, ...(queueUrl === undefined ? {} : { queueUrl }),
          audit: (tx, replay) => writeAudit(tx, run, { ...filters, keptId: replay.id, consumer: replay.consumer, key: replay.key }, 1),
        });
        replayed.push({ ...base, result: result.kind, ...('messageId' in result ? { messageId: result.messageId } : {}), ...('error' in result ? { error: result.error } : {}) });
      } catch (error) {
        if (!(error instanceof KeptReplayRefusedError)) throw error;
        replayed.push({ ...base, result: 'refused', error: error.message });
      }
      progress.update(replayed.length);
    }
    progress.end();
    const bad = replayed.filter((row) => row.result === 'failed' || row.result === 'refused').length;
    return {
      json: { runId: run.runId, replayed },
      text: `${textTable(replayed, ['id', 'consumer', 'key', 'result', 'messageId', 'error'])}\n${replayed.length - bad} of ${replayed.length} replayed (audit run ${run.runId}).`,
      exitCode: bad === 0 ? 0 : 1,
    };
  },
};

/**
 * `sqs-inbox rejected purge`: deletes the kept messages `rejected list` shows with the same flags, in
 * one transaction with its audit row. Their inbox rows stay, so a redelivery is still a duplicate:
 * a purge gives up on a message, it does not unsee it.
 */
export const rejectedPurgeCommand: Command = {
  name: 'rejected purge',
  summary: 'deletes the kept messages the filters select (as `rejected list` shows them): given up on, never replayed',
  usage: '',
  options: { ...LIST_OPTIONS, ...CHANGE_OPTIONS },
  run(context): Promise<CommandResult> {
    const where = listedWhere(context.values);
    const limit = countOf(stringOf(context.values, 'limit') ?? '100', 'limit');
    return changeRows(context, {
      command: 'rejected purge', confirm: 'delete kept messages for good', flags: Object.keys(LIST_OPTIONS),
      read: (db, lock) => keptRows(db, where, limit, lock),
      apply: (tx, rows, progress) => inChunks(rows.map((row) => row.id), 500, (ids) => tx.query(sql`DELETE FROM kept_message
        WHERE id IN (SELECT jsonb_array_elements_text(${sql.json(ids)}::jsonb)::bigint)`), progress),
      subject: (rows) => ({ ids: rows.map((row) => row.id), keys: rows.map((row) => row.key) }),
      table: (rows) => textTable(rows as unknown as Record<string, unknown>[], COLUMNS),
      names: { would: 'wouldPurge', done: 'purged' },
      words: { would: (count) => `Would purge ${count} kept messages`, done: (count) => `${count} kept messages purged`, none: 'Nothing purged.' },
    });
  },
};
