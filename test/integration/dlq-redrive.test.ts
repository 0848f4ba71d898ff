import { ReceiveMessageCommand, SendMessageCommand, type Message } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntilDrained } from '../../demo/local-stack.js';
import { processBatch, sql, type Database, type InboxOptions } from '../../functions/inbox/index.js';
import { pgDatabase } from '../../functions/inbox/pg/index.js';
import { sendMessages } from '../../functions/inbox/producer/index.js';
import { lambdaContext, startEventSource, toSqsRecord } from '../../local/event-source/index.js';
import { deadLetterAll, deadLetterPair, type DeadLetterPair } from '../support/dead-letters.js';
import { deployProject, kitTables, sqsInbox, type CliSetup, type ProjectDatabase } from '../support/operator-cli.js';
import { startTestSqs, type TestSqs } from '../support/sqs.js';

/** The project's table: no unique key, so an effect applied twice is two rows. */
const PROJECT_MIGRATION = `CREATE TABLE applied (message_key text NOT NULL, n integer NOT NULL);
GRANT SELECT, INSERT ON applied TO ledger_consumer;
`;
const ROLES = { ledger_consumer: 'consumer', dlq_operator: 'operator' } as const;
const CONSUMER = 'ledger';

type Entry = { n: number };

let project: ProjectDatabase;
let sqs: TestSqs;
let consumerDb: Database;

const asOperator = (args: string[], setup: Partial<CliSetup> = {}) => sqsInbox(args, { env: { DATABASE_URL: project.deployed.roles.dlq_operator!.url }, sqsClient: sqs.client, ...setup });
const redrive = (pair: DeadLetterPair, ...flags: string[]) => asOperator(['dlq', 'redrive', '--dlq-url', pair.dlqUrl, '--queue-url', pair.queueUrl, ...flags]);

const ledger: () => InboxOptions<Entry> = () => ({
  consumer: CONSUMER, db: consumerDb,
  handle: async (entry, { tx, key }) => { await tx!.query(sql`INSERT INTO applied (message_key, n) VALUES (${key}, ${entry.n})`); },
} as InboxOptions<Entry>);

async function drain(queueUrl: string): Promise<void> {
  const source = await startEventSource({ client: sqs.client, queueUrl, handler: (event, context) => processBatch(event, context, ledger()), pollers: 1, waitTimeSeconds: 1, onError: () => undefined });
  try {
    await waitUntilDrained(sqs.client, queueUrl, { timeoutMs: 20_000, intervalMs: 50 });
  } finally {
    await source.stop();
  }
}

async function receiveAll(queueUrl: string, count: number): Promise<Message[]> {
  const messages: Message[] = [];
  while (messages.length < count) {
    const { Messages } = await sqs.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, MessageSystemAttributeNames: ['All'], MessageAttributeNames: ['All'] }));
    messages.push(...(Messages ?? []));
  }
  return messages;
}

/** What a queue holds, without what a receive changes (its receive count). */
const contents = (queueUrl: string) => sqs.sqs.messages(queueUrl).map(({ receiveCount: _, ...message }) => message);
const applied = async () => (await project.target.pool.query<{ message_key: string; n: number }>('SELECT message_key, n FROM applied ORDER BY n')).rows;

beforeAll(async () => {
  project = await deployProject(PROJECT_MIGRATION, ROLES);
  consumerDb = pgDatabase({ connectionString: project.deployed.roles.ledger_consumer!.url, max: 4 });
  sqs = await startTestSqs();
});

afterAll(async () => {
  await consumerDb?.close();
  await sqs?.close();
  await project?.close();
});

describe('a DLQ of keyed and unkeyed messages, some applied before their deletes were lost, goes back with no effect twice', () => {
  let pair: DeadLetterPair;
  /** The messageIds the unkeyed messages were consumed (and some applied) under. */
  let unkeyedIds: string[];

  beforeAll(async () => {
    pair = await deadLetterPair(sqs, 'ledger');
    await sendMessages(sqs.client, pair.queueUrl, [1, 2, 3, 4].map((n) => ({ body: { n }, key: `entry-${n}` })));
    for (const n of [11, 12, 13, 14]) await sqs.client.send(new SendMessageCommand({ QueueUrl: pair.queueUrl, MessageBody: JSON.stringify({ n }) }));
    const received = await receiveAll(pair.queueUrl, 8);
    unkeyedIds = received.filter((message) => message.MessageAttributes === undefined).map((message) => message.MessageId!).sort();
    // Half of them commit, and their deletes are lost: all eight reach the DLQ.
    const committed = received.filter((message) => [1, 2, 11, 12].includes((JSON.parse(message.Body!) as Entry).n));
    const context = lambdaContext({ functionName: 'ledger', timeoutMs: 30_000, region: 'us-east-1', accountId: '000000000000' });
    await processBatch({ Records: committed.map((message) => toSqsRecord(message, { arn: pair.queueArn, region: 'us-east-1' })) }, context, ledger());
    sqs.clock.advance(2);
    await deadLetterAll(sqs, pair.queueUrl);
  });

  it('the DLQ holds all eight, and four are applied', async () => {
    expect(contents(pair.dlqUrl)).toHaveLength(8);
    expect((await applied()).map((row) => row.n)).toEqual([1, 2, 11, 12]);
  });

  it('--dry-run reports what it would move and changes nothing, in the queues or the tables', async () => {
    const before = { dlq: contents(pair.dlqUrl), queue: contents(pair.queueUrl), tables: await kitTables(project.target.pool), applied: await applied() };

    const run = await redrive(pair, '--dry-run', '--json');

    expect(run.code).toBe(0);
    expect(run.json()).toEqual({ dryRun: true, survey: { approximate: 8, seen: 8, keyed: 4, pinned: 4, unkeyed: 0 }, wouldMove: 8 });
    expect({ dlq: contents(pair.dlqUrl), queue: contents(pair.queueUrl), tables: await kitTables(project.target.pool), applied: await applied() }).toEqual(before);
  });

  it('without a terminal, it is refused without --yes and moves nothing', async () => {
    const before = contents(pair.dlqUrl);

    const run = await redrive(pair);

    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/sqs-inbox dlq redrive: .*would move messages from the DLQ back to .* \(8 messages\).*add --yes/);
    expect(contents(pair.dlqUrl)).toEqual(before);
  });

  it('--yes moves every message back under the key its consumer saw: the DLQ is empty and each is applied once', async () => {
    const run = await redrive(pair, '--yes', '--json');
    const moved = run.json<{ moved: { key: string; kind: string }[]; left: unknown[] }>();
    const sentKeys = contents(pair.queueUrl).map((message) => message.messageAttributes['idempotency-key']).sort();
    await drain(pair.queueUrl);

    expect(run.code).toBe(0);
    expect(moved.left).toEqual([]);
    expect(moved.moved.filter((message) => message.kind === 'pinned').map((message) => message.key).sort()).toEqual(unkeyedIds);
    expect(contents(pair.dlqUrl)).toEqual([]);
    expect(sentKeys).toEqual(['entry-1', 'entry-2', 'entry-3', 'entry-4', ...unkeyedIds].sort());
    const rows = await applied();
    expect(rows.map((row) => row.n)).toEqual([1, 2, 3, 4, 11, 12, 13, 14]);
    // None came back under a new key: the inbox knows exactly the eight keys the messages first came with.
    expect(new Set(rows.map((row) => row.message_key))).toEqual(new Set(['entry-1', 'entry-2', 'entry-3', 'entry-4', ...unkeyedIds]));
    const { rows: keys } = await project.target.pool.query<{ message_id: string }>('SELECT message_id FROM consumed_message WHERE consumer_name = $1 ORDER BY message_id', [CONSUMER]);
    expect(keys.map((row) => row.message_id)).toEqual(['entry-1', 'entry-2', 'entry-3', 'entry-4', ...unkeyedIds].sort());
  });

  it('leaves its audit rows, signed in as the operator role, one per batch with the keys it moved', async () => {
    const { rows } = await project.target.pool.query<{ command: string; row_count: number; db_role: string; subject: { moved: { key: string }[] } }>(
      `SELECT command, row_count, db_role, subject FROM operator_audit WHERE command = 'dlq redrive'`);

    expect(rows.map((row) => [row.command, row.db_role])).toEqual(rows.map(() => ['dlq redrive', 'dlq_operator']));
    expect(rows.reduce((total, row) => total + row.row_count, 0)).toBe(8);
    expect(rows.flatMap((row) => row.subject.moved.map((message) => message.key)).sort()).toEqual(['entry-1', 'entry-2', 'entry-3', 'entry-4', ...unkeyedIds].sort());
  });
});

describe('a redrive that stopped after its sends is run again, and nothing applies twice', () => {
  it('sends again what the DLQ kept, under the same keys, so the inbox drops the second copies', async () => {
    const pair = await deadLetterPair(sqs, 'rerun');
    await sendMessages(sqs.client, pair.queueUrl, [21, 22].map((n) => ({ body: { n }, key: `rerun-${n}` })));
    await sqs.client.send(new SendMessageCommand({ QueueUrl: pair.queueUrl, MessageBody: JSON.stringify({ n: 23 }) }));
    await deadLetterAll(sqs, pair.queueUrl);
    sqs.sqs.setFaults({ failDeleteEntry: (entry) => entry.queueName === pair.dlqUrl.split('/').at(-1) });

    const stopped = await redrive(pair, '--yes', '--json');
    sqs.sqs.setFaults({});
    const again = await redrive(pair, '--yes', '--json');
    await drain(pair.queueUrl);

    expect(stopped.code).toBe(1);
    expect(stopped.json<{ left: { reason: string }[] }>().left.map((message) => message.reason)).toEqual(['not-deleted', 'not-deleted', 'not-deleted']);
    expect(again.code).toBe(0);
    expect(again.json<{ moved: unknown[] }>().moved).toHaveLength(3);
    expect(contents(pair.dlqUrl)).toEqual([]);
    expect((await applied()).filter((row) => row.n > 20).map((row) => row.n)).toEqual([21, 22, 23]);
  });
});

describe('FIFO: a message whose key the DLQ replaced stays, and its group behind it, unless --include-unkeyed', () => {
  let pair: DeadLetterPair;

  beforeAll(async () => {
    pair = await deadLetterPair(sqs, 'fifo-ledger', true);
    await sendMessages(sqs.client, pair.queueUrl, [{ body: { n: 31 }, key: 'fifo-31', groupId: 'g-1' }]);
    // Keyed by its deduplication id alone, which the move into the FIFO DLQ replaces.
    await sqs.client.send(new SendMessageCommand({ QueueUrl: pair.queueUrl, MessageBody: JSON.stringify({ n: 32 }), MessageGroupId: 'g-1', MessageDeduplicationId: 'dedup-32' }));
    await sendMessages(sqs.client, pair.queueUrl, [
      { body: { n: 33 }, key: 'fifo-33', groupId: 'g-1' },
      { body: { n: 41 }, key: 'fifo-41', groupId: 'g-2' },
      { body: { n: 42 }, key: 'fifo-42', groupId: 'g-2' },
    ]);
    await deadLetterAll(sqs, pair.queueUrl);
  });

  it('moves the keyed groups in order, and keeps the unkeyed message and what follows it in its group', async () => {
    const run = await redrive(pair, '--yes', '--json');

    expect(run.code).toBe(0);
    expect(run.json<{ survey: unknown }>().survey).toEqual({ approximate: 5, seen: 5, keyed: 4, pinned: 0, unkeyed: 1 });
    expect(run.json<{ left: { key: string; reason: string }[] }>().left.map((message) => message.reason)).toEqual(['unkeyed', 'group-held']);
    expect(contents(pair.queueUrl).map((message) => [message.groupId, message.messageAttributes['idempotency-key']])).toEqual([['g-1', 'fifo-31'], ['g-2', 'fifo-41'], ['g-2', 'fifo-42']]);
    expect(contents(pair.dlqUrl).map((message) => JSON.parse(message.body) as Entry)).toEqual([{ n: 32 }, { n: 33 }]);
  });

  it('with --include-unkeyed, the rest goes in its group\'s order', async () => {
    const run = await redrive(pair, '--yes', '--include-unkeyed', '--json');

    expect(run.code).toBe(0);
    expect(run.json<{ moved: { kind: string }[] }>().moved.map((message) => message.kind)).toEqual(['unkeyed', 'keyed']);
    expect(contents(pair.dlqUrl)).toEqual([]);
    expect(contents(pair.queueUrl).filter((message) => message.groupId === 'g-1').map((message) => (JSON.parse(message.body) as Entry).n)).toEqual([31, 32, 33]);
  });
});
