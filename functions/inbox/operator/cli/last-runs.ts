import type { Database } from '../../database/database.js';
import { sql } from '../../sql/sql.js';
import { whereAll } from './command.js';

/** When the cleanup or a consumer's relay last ran, and what it did; `never` when it has no row. */
export interface LastRun {
  component: 'cleanup' | 'relay';
  consumer: string | null;
  lastRunAt: string | null;
  ageSeconds: number | null;
  report: Record<string, unknown> | null;
}

/**
 * The cleanup's last run, and the relays' of the consumers that have one or are `waiting` with
 * undispatched outbox rows (which a relay sends). A printed fact, not a verdict: the schedules are the stack's, unknown here.
 * Null when the database predates the table (the kit's migration 0007).
 */
export async function lastRuns(db: Database, consumer: string | undefined, waiting: readonly string[]): Promise<LastRun[] | null> {
  const { rows: [table] } = await db.query<{ present: boolean }>(sql`SELECT to_regclass('kit_run') IS NOT NULL AS present`);
  if (table?.present !== true) return null;
  const { rows } = await db.query<{ component: 'cleanup' | 'relay'; consumer_name: string; at: string; age: number; report: Record<string, unknown> | string }>(sql`SELECT component,
    consumer_name, to_json(ran_at)#>>'{}' AS at, extract(epoch FROM now() - ran_at)::float8 AS age, report FROM kit_run
    ${whereAll(consumer === undefined ? [] : [sql`component = 'cleanup' OR consumer_name = ${consumer}`])} ORDER BY component, consumer_name`);
  const runOf = (component: LastRun['component'], name: string): LastRun => {
    const row = rows.find((candidate) => candidate.component === component && candidate.consumer_name === name);
    return {
      component, consumer: component === 'cleanup' ? null : name, lastRunAt: row?.at ?? null, ageSeconds: row === undefined ? null : Math.round(Number(row.age)),
      report: row === undefined ? null : typeof row.report === 'string' ? JSON.parse(row.report) as Record<string, unknown> : row.report,
    };
  };
  const relayed = new Set([...rows.filter((row) => row.component === 'relay').map((row) => row.consumer_name), ...waiting]);
  return [runOf('cleanup', ''), ...[...relayed].sort().map((name) => runOf('relay', name))];
}

/** A last run as one line of text. */
export function runLine(run: LastRun): string {
  const who = run.component === 'cleanup' ? 'cleanup' : `relay of ${run.consumer}`;
  if (run.lastRunAt === null) return `  ${who}: never`;
  return `  ${who}: ${run.lastRunAt} (${run.ageSeconds} s ago) ${JSON.stringify(run.report)}`;
}
