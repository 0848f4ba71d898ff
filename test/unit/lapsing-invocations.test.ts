import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { invocationLapses } from '../../demo/lapsing-invocations.js';
import { sql, type Database } from '../../functions/inbox/index.js';
import { sqsRecord } from '../support/sqs-events.js';

/** A database that answers nothing and notes, per call, who ran the statement of which key. */
function notingDatabase(calls: string[], who: string): Database {
  return {
    query: async (statement) => {
      calls.push(`${who} ${String(statement.values[0])}`);
      return { rows: [], rowCount: 0 } as never;
    },
    transaction: (work) => work({ query: async () => ({ rows: [], rowCount: 0 }) as never }),
    close: async () => undefined,
  };
}

/** Runs the invocation's records one statement each, in order, as statement mode does for one group. */
async function run(db: Database, records: readonly SQSRecord[]): Promise<void> {
  for (const record of records) await db.query(sql`SELECT ${record.messageAttributes['idempotency-key']!.stringValue!}`);
}

const group = ['k1', 'k2', 'k3'].map((key) => sqsRecord({ key }, { key, groupId: 'g' }));

describe('a visibility timeout running out mid-batch', () => {
  it('stalls a drawn invocation after its group\'s first message, and a second one taking the messages writes the group with it by turns', async () => {
    const lapses = invocationLapses({ rate: 1, maxStallMs: 5000, maxReceiveCount: 5 }, () => 0);
    const calls: string[] = [];

    const first = run(lapses.invocation(notingDatabase(calls, 'A'), group), group);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await run(lapses.invocation(notingDatabase(calls, 'B'), group), group);
    await first;

    expect(calls).toEqual(['A k1', 'B k1', 'B k2', 'A k2', 'A k3', 'B k3']);
    expect(lapses.counts()).toEqual({ stalled: 1, overlapped: 1 });
  });

  it('goes on after maxStallMs when no second invocation takes the messages, counted as stalled only', async () => {
    const lapses = invocationLapses({ rate: 1, maxStallMs: 50, maxReceiveCount: 5 }, () => 0);
    const calls: string[] = [];

    await run(lapses.invocation(notingDatabase(calls, 'A'), group), group);

    expect(calls).toEqual(['A k1', 'A k2', 'A k3']);
    expect(lapses.counts()).toEqual({ stalled: 1, overlapped: 0 });
  });

  it('never stalls a batch without three messages of one group, nor one near its last receive', async () => {
    const lapses = invocationLapses({ rate: 1, maxStallMs: 5000, maxReceiveCount: 5 }, () => 0);
    const lastReceives = group.map((record) => ({ ...record, attributes: { ...record.attributes, ApproximateReceiveCount: '4' } }));

    await run(lapses.invocation(notingDatabase([], 'A'), group.slice(0, 2)), group.slice(0, 2));
    await run(lapses.invocation(notingDatabase([], 'A'), lastReceives), lastReceives);

    expect(lapses.counts()).toEqual({ stalled: 0, overlapped: 0 });
  });
});
