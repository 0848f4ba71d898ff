import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type Database, type InboxOptions } from '../../functions/inbox/index.js';
import { sendMessages } from '../../functions/inbox/producer/index.js';
import { crashingHandler } from '../../demo/crashing-handler.js';
import { faultPlan } from '../../demo/fault-plan.js';
import { seededRandom } from '../../demo/seeded-random.js';
import { consumeUntilDrained, openLocalStack, type TestStack } from '../support/local-stack.js';

type Step = { group: string; position: number };

const GROUPS = 8;
const STEPS = 20;

// Each step of a group appends a row; the serial id records the order in which they committed.
const modes: Record<string, (db: Database) => InboxOptions<Step>> = {
  'statement mode': (db) => ({
    consumer: 'steps',
    db,
    statement: (step) => sql`INSERT INTO steps (group_id, position) VALUES (${step.group}, ${step.position})`,
  }),
  'transaction mode': (db) => ({
    consumer: 'steps',
    db,
    handle: async (step, { tx }) => {
      await tx.query(sql`INSERT INTO steps (group_id, position) VALUES (${step.group}, ${step.position})`);
    },
  }),
};

describe.each(Object.entries(modes))('a FIFO queue in %s', (_mode, worker) => {
  let local: TestStack;
  const random = seededRandom(5);
  const faults = faultPlan({ crashRate: 0.4, crashes: ['before-commit', 'after-commit'], maxReceiveCount: 20, deliverTwiceRate: 0.2, producerRetryRate: 0.2 }, 'orders.fifo', random);

  beforeAll(async () => {
    local = await openLocalStack({ fifo: true, visibilityTimeoutSeconds: 1, maxReceiveCount: 20, sqsFaults: faults.sqsFaults });
    await local.database.pool.query('CREATE TABLE steps (id bigserial PRIMARY KEY, group_id text NOT NULL, position int NOT NULL)');
  });

  afterAll(async () => {
    await local.close();
  });

  it('applies each group\'s messages once each and in the order sent, through crashes, double deliveries and producer retries', async () => {
    const messages = Array.from({ length: STEPS }, (_, position) => Array.from({ length: GROUPS }, (__, group) => ({ group: `g${group}`, position }))).flat();
    const { failed } = await sendMessages(local.stack.sqsClient, local.stack.queueUrl, messages.map((step) => ({ body: step, groupId: step.group, key: `${step.group}-${step.position}` })));
    const crashes: string[] = [];

    const stats = await consumeUntilDrained(local.stack, crashingHandler({ db: local.stack.db, worker, plan: faults.crashAt, onCrash: (point) => crashes.push(point.when) }));

    expect(failed).toEqual([]);
    expect(crashes.length).toBeGreaterThan(0);
    expect(local.stack.sqs.stats().faults.deliveredTwice).toBeGreaterThan(0);
    expect(stats.records).toBeGreaterThan(messages.length);
    const { rows } = await local.database.pool.query<{ group_id: string; positions: number[] }>(
      'SELECT group_id, array_agg(position ORDER BY id) AS positions FROM steps GROUP BY group_id ORDER BY group_id');
    expect(rows).toHaveLength(GROUPS);
    for (const row of rows) expect(row.positions).toEqual(Array.from({ length: STEPS }, (_, position) => position));
  }, 60_000);
});
