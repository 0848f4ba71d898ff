import type pg from 'pg';
import type { Database, SqlStatement } from '../../functions/inbox/index.js';
import { toPgQuery } from '../../functions/inbox/internal.js';

interface PlanNode { 'Node Type': string; 'Relation Name'?: string; Plans?: PlanNode[] }
const planNodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(planNodes)];

/** A database that passes every statement through and keeps it, so a test can read its plan. */
export function recordingDatabase(db: Database): { db: Database; statements: SqlStatement[] } {
  const statements: SqlStatement[] = [];
  return {
    statements,
    db: { query: (statement) => { statements.push(statement); return db.query(statement); }, transaction: (work) => db.transaction(work), close: () => db.close() },
  };
}

/** The plan nodes PostgreSQL would run `statement` with on `relation` (their types, sorted), read with EXPLAIN. */
export async function planOn(pool: pg.Pool, statement: SqlStatement, relation: string): Promise<string[]> {
  const { text, values } = toPgQuery(statement);
  const { rows: [explained] } = await pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) ${text}`, values);
  return planNodes(explained!['QUERY PLAN'][0].Plan).filter((node) => node['Relation Name'] === relation).map((node) => node['Node Type']).sort();
}
