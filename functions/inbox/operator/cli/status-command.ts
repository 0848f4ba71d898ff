import type { Database } from '../../database/database.js';
import { sql, type SqlStatement } from '../../sql/sql.js';
import { countOf, stringOf, timeOf } from './arguments.js';
import type { CommandResult } from './cli-io.js';
import { whereAll, type Command } from './command.js';
import { lastRuns, runLine, type LastRun } from './last-runs.js';
import { textTable } from './table.js';

/** One consumer's figures in `status`. */
interface ConsumerStatus {
  consumer: string;
  processed: number;
  rejected: number;
  collisions: number;
  awaitingReplay: number;
  outboxOpen: number;
  oldestOpenSeconds: number | null;
  outboxFailed: number;
  groupsHeld: number;
}

type Counted = { consumer_name: string } & Record<string, number | string | null>;

async function perConsumer(db: Database, statement: SqlStatement): Promise<Map<string, Counted>> {
  const { rows } = await db.query<Counted>(statement);
  return new Map(rows.map((row) => [row.consumer_name, row]));
}

/** The figures, read one table at a time (each a short statement the operator role may run). */
async function figures(db: Database, consumer: string | undefined, since: Date, stuckSeconds: number) {
  const of = (column: string) => (consumer === undefined ? [] : [sql`${sql.identifier(column)} = ${consumer}`]);
  const stuckBefore = sql`now() - make_interval(secs => ${stuckSeconds})`;
  const inbox = await perConsumer(db, sql`SELECT consumer_name, count(*) FILTER (WHERE status = 'processed')::int AS processed,
    count(*) FILTER (WHERE status = 'rejected')::int AS rejected
    FROM consumed_message ${whereAll([sql`processed_at >= ${since}`, ...of('consumer_name')])} GROUP BY consumer_name`);
  const kept = await perConsumer(db, sql`SELECT consumer_name, count(*) FILTER (WHERE kept_as = 'collision' AND kept_at >= ${since})::int AS collisions,
    count(*) FILTER (WHERE kept_as = 'rejected' AND replay_state IS DISTINCT FROM 'sent')::int AS awaiting
    FROM kept_message ${whereAll(of('consumer_name'))} GROUP BY consumer_name`);
  const outbox = await perConsumer(db, sql`SELECT consumer_name,
    count(*) FILTER (WHERE dispatched_at IS NULL AND failed_at IS NULL)::int AS open,
    (extract(epoch FROM now() - min(created_at) FILTER (WHERE dispatched_at IS NULL AND failed_at IS NULL)))::float8 AS oldest,
    count(*) FILTER (WHERE failed_at IS NOT NULL)::int AS failed
    FROM outbox_message ${whereAll([sql`dispatched_at IS NULL`, ...of('consumer_name')])} GROUP BY consumer_name`);
  // A group held up: it has open rows, and its oldest has waited past the threshold.
  const groups = await perConsumer(db, sql`SELECT g.consumer_name, count(*)::int AS held FROM outbox_group g
    ${whereAll([sql`g.open_rows > 0`, ...of('consumer_name'), sql`(SELECT min(m.created_at) FROM outbox_message m WHERE m.consumer_name = g.consumer_name
      AND m.target = g.target AND m.group_id = g.group_id AND m.dispatched_at IS NULL AND m.failed_at IS NULL) < ${stuckBefore}`])}
    GROUP BY g.consumer_name`);
  const { rows: reasons } = await db.query<{ consumer: string; kept_as: string; reason: string; count: number }>(sql`SELECT consumer_name AS consumer, kept_as, reason, count(*)::int AS count
    FROM kept_message ${whereAll([sql`kept_at >= ${since}`, ...of('consumer_name')])} GROUP BY consumer_name, kept_as, reason ORDER BY consumer_name, count(*) DESC, reason`);
  const { rows: failed } = await db.query<{ consumer: string; target: string; reason: string | null; count: number }>(sql`SELECT consumer_name AS consumer, target, error AS reason, count(*)::int AS count
    FROM outbox_message ${whereAll([sql`failed_at IS NOT NULL`, ...of('consumer_name')])} GROUP BY consumer_name, target, error ORDER BY consumer_name, target, count(*) DESC`);
  const names = [...new Set([...inbox.keys(), ...kept.keys(), ...outbox.keys(), ...groups.keys()])].sort();
  const consumers: ConsumerStatus[] = names.map((name) => ({
    consumer: name,
    processed: Number(inbox.get(name)?.processed ?? 0),
    rejected: Number(inbox.get(name)?.rejected ?? 0),
    collisions: Number(kept.get(name)?.collisions ?? 0),
    awaitingReplay: Number(kept.get(name)?.awaiting ?? 0),
    outboxOpen: Number(outbox.get(name)?.open ?? 0),
    oldestOpenSeconds: outbox.get(name)?.oldest == null ? null : Math.round(Number(outbox.get(name)!.oldest)),
    outboxFailed: Number(outbox.get(name)?.failed ?? 0),
    groupsHeld: Number(groups.get(name)?.held ?? 0),
  }));
  return { consumers, reasons: reasons.map((row) => ({ ...row, count: Number(row.count) })), failed: failed.map((row) => ({ ...row, count: Number(row.count) })) };
}

/** What needs a person, one sentence each with what to run. */
function attentionOf(consumers: readonly ConsumerStatus[], stuckSeconds: number, runs: readonly LastRun[] | null): string[] {
  const relayRun = (consumer: string) => {
    const run = runs?.find((candidate) => candidate.component === 'relay' && candidate.consumer === consumer);
    if (run === undefined) return '';
    return run.lastRunAt === null ? ' (no relay run is recorded)' : ` (its relay last ran ${run.ageSeconds} s ago)`;
  };
  return consumers.flatMap((c) => [
    ...(c.awaitingReplay > 0 ? [`${c.consumer}: ${c.awaitingReplay} rejected messages wait for a replay (sqs-inbox rejected list --consumer ${c.consumer}).`] : []),
    ...(c.collisions > 0 ? [`${c.consumer}: ${c.collisions} collisions, a known key with another body (sqs-inbox rejected list --consumer ${c.consumer} --kind collision).`] : []),
    ...(c.outboxFailed > 0 ? [`${c.consumer}: ${c.outboxFailed} outbox rows failed (sqs-inbox outbox list --consumer ${c.consumer}).`] : []),
    ...(c.oldestOpenSeconds !== null && c.oldestOpenSeconds > stuckSeconds ? [`${c.consumer}: the oldest undispatched outbox row waits for ${c.oldestOpenSeconds} s: is its relay running?${relayRun(c.consumer)}`] : []),
    ...(c.groupsHeld > 0 ? [`${c.consumer}: ${c.groupsHeld} FIFO groups held up behind an unsent row (sqs-inbox outbox list --consumer ${c.consumer} --state open).`] : []),
  ]);
}

/** `sqs-inbox status`: per consumer, what went through and what needs a person; exit 1 when something does. */
export const statusCommand: Command = {
  name: 'status',
  summary: 'per consumer: processed, rejected, collisions, the outbox\'s backlog and failures, the cleanup\'s and relays\' last runs; exits 1 when something needs a person',
  usage: '',
  options: {
    consumer: { type: 'string', description: 'only this consumer' },
    since: { type: 'string', description: 'the window: a duration back (30m, 6h, 7d) or a date (default 24h)' },
    'stuck-after': { type: 'string', description: 'seconds an undispatched outbox row may wait before it needs a person (default 300)' },
  },
  async run({ values, db }): Promise<CommandResult> {
    const since = timeOf(stringOf(values, 'since') ?? '24h', 'since');
    const stuckSeconds = countOf(stringOf(values, 'stuck-after') ?? '300', 'stuck-after', 0);
    const { consumers, reasons, failed } = await figures(db, stringOf(values, 'consumer'), since, stuckSeconds);
    const runs = await lastRuns(db, stringOf(values, 'consumer'), consumers.filter((c) => c.outboxOpen > 0).map((c) => c.consumer));
    const attention = attentionOf(consumers, stuckSeconds, runs);
    const json = { since: since.toISOString(), consumers, kept: reasons, outboxFailed: failed, lastRuns: runs, attention };
    const text = [
      `Since ${json.since}`,
      textTable(consumers as unknown as Record<string, unknown>[], ['consumer', 'processed', 'rejected', 'collisions', 'awaitingReplay', 'outboxOpen', 'oldestOpenSeconds', 'outboxFailed', 'groupsHeld']),
      '', 'Kept (rejected and collided) by reason', textTable(reasons, ['consumer', 'kept_as', 'reason', 'count']),
      '', 'Failed outbox rows by target and reason', textTable(failed, ['consumer', 'target', 'reason', 'count']),
      '', 'Last runs', ...(runs === null ? ['  not recorded: the kit\'s migration 0007_kit_run.sql is not applied to this database'] : runs.map(runLine)),
      '', attention.length === 0 ? 'All is well.' : `Needs a person:\n${attention.map((line) => `  - ${line}`).join('\n')}`,
    ].join('\n');
    return { json, text, exitCode: attention.length === 0 ? 0 : 1 };
  },
};
