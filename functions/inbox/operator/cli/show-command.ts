import { sql } from '../../sql/sql.js';
import { OperatorCommandError } from '../errors.js';
import { stringOf } from './arguments.js';
import type { CommandResult } from './cli-io.js';
import { whereAll, type Command } from './command.js';
import { textTable } from './table.js';

/** A timestamp column as ISO text, the same from either driver. */
const iso = (column: string) => sql`to_json(${sql.identifier(column)})#>>'{}'`;

/** `sqs-inbox show KEY`: one key's story, from its inbox row to what its outbox rows became downstream. */
export const showCommand: Command = {
  name: 'show',
  summary: 'one key\'s story: its inbox row, what was kept of it, the outbox rows it wrote and what became of each',
  usage: 'KEY',
  options: { consumer: { type: 'string', description: 'only this consumer\'s rows' } },
  async run({ values, positionals, db }): Promise<CommandResult> {
    const key = positionals[0];
    if (key === undefined || positionals.length > 1) throw new OperatorCommandError('`sqs-inbox show` takes one KEY, the message\'s idempotency key: quote it if it has spaces.');
    const consumer = stringOf(values, 'consumer');
    const ofConsumer = consumer === undefined ? [] : [sql`consumer_name = ${consumer}`];
    const { rows: inbox } = await db.query(sql`SELECT consumer_name AS consumer, status, ${iso('processed_at')} AS at, error
      FROM consumed_message ${whereAll([sql`message_id = ${key}`, ...ofConsumer])} ORDER BY consumer_name`);
    const { rows: kept } = await db.query(sql`SELECT id::int AS id, consumer_name AS consumer, kept_as, reason, ${iso('kept_at')} AS at,
      replay_state, replays, replay_error FROM kept_message ${whereAll([sql`message_key = ${key}`, ...ofConsumer])} ORDER BY id`);
    const { rows: outbox } = await db.query<{ id: string } & Record<string, unknown>>(sql`SELECT id::text AS id, consumer_name AS consumer, target, group_id,
      group_seq::text AS group_seq, CASE WHEN dispatched_at IS NOT NULL THEN 'dispatched' WHEN failed_at IS NOT NULL THEN 'failed' ELSE 'open' END AS state,
      attempts, ${iso('created_at')} AS created_at, ${iso('dispatched_at')} AS dispatched_at, ${iso('failed_at')} AS failed_at, error
      FROM outbox_message ${whereAll([sql`message_key = ${key}`, ...ofConsumer])} ORDER BY created_at, group_seq, id`);
    // Downstream, an outbox row's id is the next inbox's key.
    const { rows: downstream } = outbox.length === 0 ? { rows: [] } : await db.query<{ message_id: string; consumer: string; status: string }>(sql`SELECT message_id, consumer_name AS consumer, status
      FROM consumed_message WHERE message_id IN (SELECT jsonb_array_elements_text(${sql.json(outbox.map((row) => row.id))}::jsonb)) ORDER BY consumer_name`);
    const sent = outbox.map((row) => ({ ...row, downstream: downstream.filter((next) => next.message_id === row.id).map(({ consumer: by, status }) => ({ consumer: by, status })) }));
    if (inbox.length === 0 && kept.length === 0 && outbox.length === 0) {
      throw new OperatorCommandError(`No inbox, kept or outbox row has the key ${JSON.stringify(key)}${consumer === undefined ? '' : ` for ${consumer}`}: check the key (the idempotency-key attribute, else the deduplication or message id), or the cleanup deleted it past its retention.`);
    }
    const json = { key, inbox, kept, outbox: sent };
    const text = [
      `Key ${key}`, '', 'Inbox', textTable(inbox, ['consumer', 'status', 'at', 'error']),
      '', 'Kept', textTable(kept, ['id', 'consumer', 'kept_as', 'reason', 'at', 'replay_state', 'replays', 'replay_error']),
      '', 'Outbox', textTable(sent.map((row) => ({ ...row, downstream: row.downstream.map((next) => `${next.consumer}: ${next.status}`).join(', ') })),
        ['id', 'target', 'group_id', 'group_seq', 'state', 'attempts', 'dispatched_at', 'failed_at', 'error', 'downstream']),
    ].join('\n');
    return { json, text, exitCode: 0 };
  },
};
