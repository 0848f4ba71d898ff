import type { RDSDataClient } from '@aws-sdk/client-rds-data';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntilDrained } from '../../demo/local-stack.js';
import { PermanentError, processBatch, sql, type Database, type InboxOptions } from '../../functions/inbox/index.js';
import { cleanupInbox } from '../../functions/inbox/cleanup/index.js';
import { recordKitRun } from '../../functions/inbox/kit-run.js';
import { relayOutbox, sqsTarget, type Publisher } from '../../functions/inbox/outbox/index.js';
import { pgDatabase } from '../../functions/inbox/pg/index.js';
import { sendMessages } from '../../functions/inbox/producer/index.js';
import { LOCAL_DATA_API_TARGET, localDataApiClient, startDataApi, type RunningDataApi } from '../../local/data-api/index.js';
import { startEventSource } from '../../local/event-source/index.js';
import { deployProject, kitTables, sqsInbox, type CliSetup, type ProjectDatabase } from '../support/operator-cli.js';
import { drainMessages, keyAttribute } from '../support/outbox.js';
import { queueName, startTestSqs, type TestSqs } from '../support/sqs.js';

/** The project's table, which the consumer writes and the operator role may not touch. */
const PROJECT_MIGRATION = `CREATE TABLE payments (payment_key text PRIMARY KEY, amount integer NOT NULL);
GRANT SELECT, INSERT ON payments TO pay_consumer;
`;
const ROLES = { pay_consumer: 'consumer', kit_operator: 'operator', kit_cleanup: 'cleanup', kit_relay: 'relay' } as const;
const CONSUMER = 'pay-ledger';
const REFUSAL = 'QueueDoesNotExist: the ledger queue was deleted';

type Payment = { n: number; bad?: boolean };

let project: ProjectDatabase;
let sqs: TestSqs;
let consumerDb: Database;
let ownerDb: Database;

/** The line signed in as the operator role, on a DATABASE_URL, without a terminal unless told. */
const asOperator = (args: string[], setup: Partial<CliSetup> = {}) => sqsInbox(args, { env: { DATABASE_URL: project.deployed.roles.kit_operator!.url }, sqsClient: sqs.client, ...setup });

/** A target that refuses every message, as SQS does once its queue is deleted. */
const deletedTarget: Publisher = { fifo: true, publish: async (entries) => entries.map(() => ({ kind: 'refused' as const, reason: REFUSAL })) };

/** The payments consumer: rejects a bad payment until its cause is fixed, writes the payment and a ledger message for it. */
function paymentsConsumer(state: { fixed: boolean }, ledger: Publisher): InboxOptions<Payment> {
  return {
    consumer: CONSUMER, db: consumerDb,
    outbox: { targets: { ledger } },
    handle: async (payment, { tx, key, outbox }) => {
      if (payment.bad === true && !state.fixed) throw new PermanentError('ledger account missing');
      await tx!.query(sql`INSERT INTO payments (payment_key, amount) VALUES (${key}, ${payment.n})`);
      await outbox.send({ target: 'ledger', body: { payment: key }, groupId: 'wallet-1' });
    },
  } as InboxOptions<Payment>;
}

async function drain(queueUrl: string, options: InboxOptions<Payment>): Promise<void> {
  const source = await startEventSource({ client: sqs.client, queueUrl, handler: (event, context) => processBatch(event, context, options), pollers: 1, waitTimeSeconds: 1, onError: () => undefined });
  try {
    await waitUntilDrained(sqs.client, queueUrl, { timeoutMs: 20_000, intervalMs: 50 });
  } finally {
    await source.stop();
  }
}

beforeAll(async () => {
  project = await deployProject(PROJECT_MIGRATION, ROLES);
  consumerDb = pgDatabase({ connectionString: project.deployed.roles.pay_consumer!.url, max: 4 });
  ownerDb = pgDatabase({ pool: project.target.pool });
  sqs = await startTestSqs();
});

afterAll(async () => {
  await consumerDb?.close();
  await sqs?.close();
  await project?.close();
});

describe('a deploy that rejects payments and a deleted outbox target, seen and mended from the command line', () => {
  const state = { fixed: false };
  let paymentsQueue: string;
  let ledgerQueue: string;

  beforeAll(async () => {
    paymentsQueue = await sqs.createQueue(queueName('payments'));
    ledgerQueue = await sqs.createQueue(queueName('ledger', true), { FifoQueue: 'true' });
    await sendMessages(sqs.client, paymentsQueue, [1, 2, 3, 4, 5, 6].map((n) => ({ body: { n, bad: n % 2 === 0 }, key: `pay-${n}` })));
    await drain(paymentsQueue, paymentsConsumer(state, deletedTarget));
    // The rows of the group left behind the first refusal go to the relay, which meets the deleted queue too.
    await relayOutbox(ownerDb, { ledger: deletedTarget }, { consumer: CONSUMER, graceMs: 0 });
  });

  it('status names the rejections by reason and the failed rows by target, and exits 1', async () => {
    const run = await asOperator(['status', '--json']);

    expect(run.code).toBe(1);
    const status = run.json<{ consumers: Record<string, unknown>[]; kept: unknown[]; outboxFailed: unknown[]; attention: string[] }>();
    expect(status.consumers).toEqual([expect.objectContaining({ consumer: CONSUMER, processed: 3, rejected: 3, awaitingReplay: 3, outboxFailed: 3, collisions: 0 })]);
    expect(status.kept).toEqual([{ consumer: CONSUMER, kept_as: 'rejected', reason: expect.stringContaining('ledger account missing'), count: 3 }]);
    expect(status.outboxFailed).toEqual([{ consumer: CONSUMER, target: 'ledger', reason: REFUSAL, count: 3 }]);
    expect(status.attention).toHaveLength(2);
  });

  it('the terminal\'s table carries the same fields', async () => {
    const run = await asOperator(['status']);

    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/consumer\s+processed\s+rejected\s+collisions\s+awaitingReplay/);
    expect(run.stdout).toContain('Needs a person:');
  });

  it('rejected list and outbox list show what is kept and what failed', async () => {
    const kept = (await asOperator(['rejected', 'list', '--consumer', CONSUMER, '--json'])).json<{ kept: { key: string }[] }>().kept;
    const failed = (await asOperator(['outbox', 'list', '--json'])).json<{ rows: { key: string; state: string }[] }>().rows;

    expect(kept.map((row) => row.key).sort()).toEqual(['pay-2', 'pay-4', 'pay-6']);
    expect(failed.map((row) => [row.key, row.state]).sort()).toEqual([['pay-1', 'failed'], ['pay-3', 'failed'], ['pay-5', 'failed']]);
  });

  it('--dry-run shows what it would touch and changes nothing', async () => {
    const before = await kitTables(project.target.pool);

    const replay = await asOperator(['rejected', 'replay', '--dry-run', '--json']);
    const retry = await asOperator(['outbox', 'retry', '--dry-run', '--json']);

    expect([replay.code, retry.code]).toEqual([0, 0]);
    expect(replay.json<{ wouldReplay: { key: string }[] }>().wouldReplay.map((row) => row.key).sort()).toEqual(['pay-2', 'pay-4', 'pay-6']);
    expect(retry.json<{ wouldRetry: unknown[] }>().wouldRetry).toHaveLength(3);
    expect(await kitTables(project.target.pool)).toEqual(before);
  });

  it('without a terminal, a change without --yes is refused and changes nothing', async () => {
    const before = await kitTables(project.target.pool);

    const replay = await asOperator(['rejected', 'replay']);
    const retry = await asOperator(['outbox', 'retry']);

    expect([replay.code, retry.code]).toEqual([2, 2]);
    expect(replay.stderr).toMatch(/^sqs-inbox rejected replay: .*add --yes to go ahead, or --dry-run/);
    expect(retry.stderr.trim().split('\n')).toHaveLength(1);
    expect(await kitTables(project.target.pool)).toEqual(before);
  });

  it('at a terminal, a "no" changes nothing', async () => {
    const before = await kitTables(project.target.pool);

    const run = await asOperator(['outbox', 'retry'], { interactive: true, answer: false });

    expect(run.code).toBe(0);
    expect(run.asked).toEqual([expect.stringMatching(/^Retry failed outbox rows \(3 rows\)\?/)]);
    expect(await kitTables(project.target.pool)).toEqual(before);
  });

  it('after the fix, replay applies every rejected payment once and retry sends every failed row with its id, in its group\'s order', async () => {
    const { rows: failedRows } = await project.target.pool.query<{ id: string }>(`SELECT id::text FROM outbox_message WHERE failed_at IS NOT NULL ORDER BY group_seq`);
    state.fixed = true;
    const ledger = sqsTarget({ client: sqs.client, queueUrl: ledgerQueue });

    const replay = await asOperator(['rejected', 'replay', '--yes', '--json']);
    await drain(paymentsQueue, paymentsConsumer(state, ledger));
    const retry = await asOperator(['outbox', 'retry', '--consumer', CONSUMER, '--yes', '--json']);
    await relayOutbox(ownerDb, { ledger }, { consumer: CONSUMER, graceMs: 0 });

    expect(replay.code).toBe(0);
    expect(replay.json<{ replayed: { result: string }[] }>().replayed.map((row) => row.result)).toEqual(['sent', 'sent', 'sent']);
    expect(retry.json<{ retried: { id: string }[] }>().retried.map((row) => row.id)).toEqual(failedRows.map((row) => row.id));
    const { rows: payments } = await project.target.pool.query<{ payment_key: string }>('SELECT payment_key FROM payments ORDER BY payment_key');
    expect(payments.map((row) => row.payment_key)).toEqual(['pay-1', 'pay-2', 'pay-3', 'pay-4', 'pay-5', 'pay-6']);
    const received = (await drainMessages(sqs.client, ledgerQueue)).map(keyAttribute);
    expect(received.filter((id) => failedRows.some((row) => row.id === id))).toEqual(failedRows.map((row) => row.id));
    expect(new Set(received).size).toBe(6);
  });

  it('every change left its audit row, signed in as the operator role', async () => {
    const { rows } = await project.target.pool.query(`SELECT command, row_count, actor, db_role, subject FROM operator_audit ORDER BY command DESC, subject->>'key'`);

    expect(rows).toEqual([
      ...['pay-2', 'pay-4', 'pay-6'].map((key) => ({ command: 'rejected replay', row_count: 1, actor: 'on-call@test', db_role: 'kit_operator', subject: expect.objectContaining({ key, consumer: CONSUMER }) })),
      { command: 'outbox retry', row_count: 3, actor: 'on-call@test', db_role: 'kit_operator', subject: expect.objectContaining({ consumer: CONSUMER, ids: expect.any(Array) }) },
    ]);
  });

  it('once all went, status exits 0', async () => {
    const run = await asOperator(['status', '--json']);

    expect(run.json<{ attention: string[] }>().attention).toEqual([]);
    expect(run.code).toBe(0);
  });

  it('show KEY prints the chain: its inbox row, what was kept, its outbox row and what became of it', async () => {
    const run = await asOperator(['show', 'pay-2', '--json']);

    expect(run.code).toBe(0);
    expect(run.json()).toEqual({
      key: 'pay-2',
      inbox: [expect.objectContaining({ consumer: CONSUMER, status: 'processed' })],
      kept: [expect.objectContaining({ kept_as: 'rejected', replay_state: 'sent', replays: 1 })],
      outbox: [expect.objectContaining({ target: 'ledger', group_id: 'wallet-1', state: 'dispatched', downstream: [] })],
    });
  });

  it('show of an unknown key says so on stderr and exits 2', async () => {
    const run = await asOperator(['show', 'pay-99']);

    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/No inbox, kept or outbox row has the key "pay-99"/);
  });
});

describe('the operator role reads and changes the kit\'s tables and nothing of the project\'s', () => {
  it('cannot read or write a project table', async () => {
    const operator = new pg.Pool({ connectionString: project.deployed.roles.kit_operator!.url, max: 1 });
    try {
      await expect(operator.query('SELECT * FROM payments')).rejects.toMatchObject({ code: '42501' });
      await expect(operator.query(`INSERT INTO payments VALUES ('x', 1)`)).rejects.toMatchObject({ code: '42501' });
      await expect(operator.query('SELECT count(*) FROM operator_audit')).resolves.toMatchObject({ rowCount: 1 });
    } finally {
      await operator.end();
    }
  });
});

describe('connecting through the Data API with the operator role\'s secret', () => {
  let api: RunningDataApi;
  let client: RDSDataClient;
  beforeAll(async () => {
    api = await startDataApi({ databaseUrl: project.target.url, secrets: project.deployed.secrets });
    client = localDataApiClient(api.endpoint);
  });
  afterAll(async () => {
    client?.destroy();
    await api?.close();
  });

  it('answers what the pg driver answers, from the flags or from the functions\' environment', async () => {
    const database = decodeURIComponent(new URL(project.target.url).pathname.slice(1));
    const secretArn = project.deployed.roles.kit_operator!.secretArn;

    const byFlags = await sqsInbox(['rejected', 'list', '--all', '--json', '--cluster-arn', LOCAL_DATA_API_TARGET.resourceArn, '--secret-arn', secretArn, '--database', database], { env: {}, rdsDataClient: client });
    const byEnv = await sqsInbox(['rejected', 'list', '--all', '--json'], { env: { CLUSTER_ARN: LOCAL_DATA_API_TARGET.resourceArn, SECRET_ARN: secretArn, DATABASE_NAME: database }, rdsDataClient: client });
    const byUrl = await asOperator(['rejected', 'list', '--all', '--json']);

    expect(byFlags.code).toBe(0);
    expect(byFlags.json()).toEqual(byUrl.json());
    expect(byEnv.json()).toEqual(byUrl.json());
  });
});

describe('the line itself', () => {
  const bare = (args: string[], env: Record<string, string> = {}) => sqsInbox(args, { env });

  it('--help on every level lists what is below it', async () => {
    const top = await bare(['--help']);
    const noun = await bare(['outbox', '--help']);
    const verb = await bare(['outbox', 'retry', '--help']);

    expect([top.code, noun.code, verb.code]).toEqual([0, 0, 0]);
    expect(top.stdout).toMatch(/status[\s\S]*show[\s\S]*rejected replay[\s\S]*outbox retry/);
    expect(noun.stdout).toMatch(/outbox list[\s\S]*outbox retry/);
    expect(noun.stdout).not.toContain('rejected');
    expect(verb.stdout).toMatch(/--dry-run[\s\S]*--yes[\s\S]*--database-url/);
  });

  it('refuses an unknown command, an unknown flag and a missing connection in one sentence on stderr, with exit 2', async () => {
    const command = await bare(['stats']);
    const flag = await bare(['status', '--consumr', 'x']);
    const connection = await bare(['status']);

    expect([command.code, flag.code, connection.code]).toEqual([2, 2, 2]);
    expect(command.stderr).toBe('Unknown command "stats": run `sqs-inbox --help` for the list.\n');
    expect(flag.stderr).toMatch(/--consumr.*: run `sqs-inbox status --help` for its options\.\n$/);
    expect(connection.stderr).toMatch(/set DATABASE_URL .*CLUSTER_ARN, SECRET_ARN and DATABASE_NAME/);
    expect([command, flag, connection].map((run) => run.stdout)).toEqual(['', '', '']);
  });
});

describe('outbox retry and status on FIFO groups', () => {
  /** An outbox row of `consumer` in group g-1 at `seq`, failed or open, written `ageSeconds` ago. */
  async function groupRow(consumer: string, seq: number, state: 'failed' | 'open', ageSeconds = 0): Promise<string> {
    const { rows } = await project.target.pool.query<{ id: string }>(`INSERT INTO outbox_message (id, consumer_name, message_key, target, body, group_id, group_seq, size_bytes, created_at, failed_at, error)
      VALUES (gen_random_uuid(), $1, $2, 'ledger', '{}', 'g-1', $3, 2, now() - make_interval(secs => $4), CASE WHEN $5 THEN now() END, CASE WHEN $5 THEN 'refused' END)
      RETURNING id::text`, [consumer, `key-${seq}`, seq, ageSeconds, state === 'failed']);
    return rows[0]!.id;
  }
  const group = async (consumer: string) => (await project.target.pool.query('SELECT next_seq::int, open_rows FROM outbox_group WHERE consumer_name = $1', [consumer])).rows;

  it('a retry in a group the cleanup purged while idle makes the group again at the row\'s place', async () => {
    const id = await groupRow('purged-group', 4, 'failed');

    const run = await asOperator(['outbox', 'retry', '--consumer', 'purged-group', '--yes', '--json']);

    expect(run.json<{ retried: { id: string }[] }>().retried.map((row) => row.id)).toEqual([id]);
    expect(await group('purged-group')).toEqual([{ next_seq: 4, open_rows: 1 }]);
  });

  it('a retry in a live group adds its rows to the group\'s open count and leaves its numbering alone', async () => {
    await project.target.pool.query(`INSERT INTO outbox_group (consumer_name, target, group_id, next_seq, open_rows) VALUES ('live-group', 'ledger', 'g-1', 9, 1)`);
    await groupRow('live-group', 2, 'failed');
    await groupRow('live-group', 5, 'failed');
    await groupRow('live-group', 9, 'open');

    const run = await asOperator(['outbox', 'retry', '--consumer', 'live-group', '--yes']);

    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/2 failed outbox rows opened again/);
    expect(await group('live-group')).toEqual([{ next_seq: 9, open_rows: 3 }]);
  });

  it('status counts a group whose oldest open row waited past --stuck-after as held, and exits 1', async () => {
    await project.target.pool.query(`INSERT INTO outbox_group (consumer_name, target, group_id, next_seq, open_rows) VALUES ('held-group', 'ledger', 'g-1', 1, 1)`);
    await groupRow('held-group', 1, 'open', 600);

    const held = await asOperator(['status', '--consumer', 'held-group', '--json']);
    const patient = await asOperator(['status', '--consumer', 'held-group', '--stuck-after', '3600', '--json']);

    expect(held.code).toBe(1);
    expect(held.json<{ consumers: unknown[] }>().consumers).toEqual([expect.objectContaining({ consumer: 'held-group', groupsHeld: 1, outboxOpen: 1 })]);
    expect(patient.code).toBe(0);
  });
});

describe('rejected purge and outbox purge', () => {
  /** A kept message of `consumer` under `key`, with its rejected inbox row. */
  async function keep(consumer: string, key: string, keptAs: 'rejected' | 'collision' = 'rejected'): Promise<void> {
    await project.target.pool.query(`INSERT INTO consumed_message (consumer_name, message_id, status, payload_hash, error) VALUES ($1, $2, 'rejected', 'h', 'bad') ON CONFLICT DO NOTHING`, [consumer, key]);
    await project.target.pool.query(`INSERT INTO kept_message (consumer_name, message_key, kept_as, reason, source, body, body_encoding, body_bytes, kept_bytes, origin)
      VALUES ($1, $2, $3, 'bad', 'sqs', '{}', 'utf8', 2, 2, '{}')`, [consumer, key, keptAs]);
  }
  const keptKeys = async (consumer: string) => (await project.target.pool.query<{ message_key: string }>('SELECT message_key FROM kept_message WHERE consumer_name = $1 ORDER BY message_key', [consumer])).rows.map((row) => row.message_key);

  it('rejected purge deletes what rejected list selects, keeps the inbox rows (a redelivery stays a duplicate), and leaves its audit row', async () => {
    await keep('purge-kept', 'k-1');
    await keep('purge-kept', 'k-2');
    await keep('purge-kept', 'k-3', 'collision');
    const before = await kitTables(project.target.pool);

    const dry = await asOperator(['rejected', 'purge', '--consumer', 'purge-kept', '--kind', 'rejected', '--dry-run', '--json']);
    const unconfirmed = await asOperator(['rejected', 'purge', '--consumer', 'purge-kept', '--kind', 'rejected']);
    const changedNothing = await kitTables(project.target.pool);
    const run = await asOperator(['rejected', 'purge', '--consumer', 'purge-kept', '--kind', 'rejected', '--yes', '--json']);

    expect(dry.json<{ wouldPurge: { key: string }[] }>().wouldPurge.map((row) => row.key)).toEqual(['k-1', 'k-2']);
    expect(unconfirmed.code).toBe(2);
    expect(changedNothing).toEqual(before);
    expect(run.code).toBe(0);
    expect(await keptKeys('purge-kept')).toEqual(['k-3']);
    const { rows: inbox } = await project.target.pool.query('SELECT message_id FROM consumed_message WHERE consumer_name = $1 ORDER BY message_id', ['purge-kept']);
    expect(inbox.map((row) => row.message_id)).toEqual(['k-1', 'k-2', 'k-3']);
    const { rows: audit } = await project.target.pool.query(`SELECT row_count, db_role, subject FROM operator_audit WHERE command = 'rejected purge'`);
    expect(audit).toEqual([{ row_count: 2, db_role: 'kit_operator', subject: expect.objectContaining({ consumer: 'purge-kept', kind: 'rejected', keys: ['k-1', 'k-2'] }) }]);
  });

  it('outbox purge deletes a failed row of a FIFO group and leaves the group\'s numbering, open count and open rows as they are', async () => {
    await project.target.pool.query(`INSERT INTO outbox_group (consumer_name, target, group_id, next_seq, open_rows) VALUES ('purge-group', 'ledger', 'g-1', 3, 1)`);
    const insert = (seq: number, failed: boolean) => project.target.pool.query<{ id: string }>(`INSERT INTO outbox_message (id, consumer_name, message_key, target, body, group_id, group_seq, size_bytes, failed_at, error)
      VALUES (gen_random_uuid(), 'purge-group', $1, 'ledger', '{}', 'g-1', $2, 2, CASE WHEN $3 THEN now() END, CASE WHEN $3 THEN 'refused' END) RETURNING id::text`, [`key-${seq}`, seq, failed]);
    const failedId = (await insert(2, true)).rows[0]!.id;
    const openId = (await insert(3, false)).rows[0]!.id;
    const group = async () => (await project.target.pool.query('SELECT next_seq::int, open_rows FROM outbox_group WHERE consumer_name = $1', ['purge-group'])).rows;
    const groupBefore = await group();

    const run = await asOperator(['outbox', 'purge', '--consumer', 'purge-group', '--yes', '--json']);

    expect(run.code).toBe(0);
    expect(run.json<{ purged: { id: string }[] }>().purged.map((row) => row.id)).toEqual([failedId]);
    const { rows } = await project.target.pool.query('SELECT id::text FROM outbox_message WHERE consumer_name = $1', ['purge-group']);
    expect(rows.map((row) => row.id)).toEqual([openId]);
    expect(await group()).toEqual(groupBefore);
  });

  it('outbox purge refuses open rows, which are the relay\'s to send, in one sentence with exit 2', async () => {
    const run = await asOperator(['outbox', 'purge', '--state', 'open', '--yes']);

    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^sqs-inbox outbox purge: --state "open" cannot be purged: give failed or dispatched/);
  });
});

describe('status says when the cleanup and each relay last ran', () => {
  const runsOf = async () => (await asOperator(['status', '--json'])).json<{ lastRuns: { component: string; consumer: string | null; lastRunAt: string | null; report: Record<string, unknown> | null }[] }>().lastRuns;

  it('"never" for a cleanup that has not run; a relay run signed in as the relay role is there with its report', async () => {
    const relayDb = pgDatabase({ connectionString: project.deployed.roles.kit_relay!.url, max: 1 });
    try {
      await relayOutbox(relayDb, { ledger: deletedTarget }, { consumer: 'relayed-once', graceMs: 0 });
    } finally {
      await relayDb.close();
    }

    const runs = await runsOf();
    const text = (await asOperator(['status'])).stdout;

    expect(runs.find((run) => run.component === 'cleanup')).toEqual({ component: 'cleanup', consumer: null, lastRunAt: null, ageSeconds: null, report: null });
    expect(runs.find((run) => run.consumer === 'relayed-once')).toEqual(expect.objectContaining({ component: 'relay', lastRunAt: expect.any(String), report: expect.objectContaining({ sent: 0, ended: 'caughtUp' }) }));
    expect(text).toMatch(/Last runs\n {2}cleanup: never\n/);
  });

  it('a cleanup run recorded by the cleanup role replaces "never" with its time and what it deleted', async () => {
    const cleanupDb = pgDatabase({ connectionString: project.deployed.roles.kit_cleanup!.url, max: 1 });
    try {
      await recordKitRun(cleanupDb, 'cleanup', await cleanupInbox(cleanupDb, { retentionMs: 86_400_000 }));
    } finally {
      await cleanupDb.close();
    }

    const text = (await asOperator(['status'])).stdout;

    expect((await runsOf()).find((run) => run.component === 'cleanup')).toEqual(expect.objectContaining({ lastRunAt: expect.any(String), report: { deleted: 0, batches: 1, done: true } }));
    expect(text).toMatch(/ {2}cleanup: \d{4}-\d\d-\d\dT[^ ]+ \(\d+ s ago\) \{.*"deleted":0/);
  });
});
