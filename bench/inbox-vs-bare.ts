/**
 * The kit's overhead on PostgreSQL: N messages through processBatch with pgDatabase at concurrency C,
 * beside the bare work it wraps (the same claim and update issued directly with pg, C at a time), in
 * statement mode and in transaction mode, in one run on one server.
 *
 *   npm run bench -- --messages 4000 --concurrency 10 --batch 100
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { processBatch, sql, type InboxOptions, type SqlStatement } from '../functions/inbox/index.js';
import { pgDatabase } from '../functions/inbox/pg/index.js';
import { claimStatement, guardedStatement, payloadHash, toPgQuery, type ClaimTarget } from '../functions/inbox/internal.js';
import { startPostgres } from '../local/postgres/index.js';
import { createScratchDatabase } from '../local/scratch-database.js';
import { lambdaContext, sqsEvent, sqsRecord } from '../test/support/sqs-events.js';
import { migrateReferenceDatabase } from '../demo/reference-database.js';

const { values: args } = parseArgs({
  options: {
    messages: { type: 'string', default: '4000' },
    concurrency: { type: 'string', default: '10' },
    batch: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '3' },
  },
});
const N = Number(args.messages);
const C = Number(args.concurrency);
const BATCH = Number(args.batch);
const ROUNDS = Number(args.rounds);

type Ship = { orderId: string };
const ship = (orderId: string): SqlStatement => sql`UPDATE orders SET status = 'shipped', version = version + 1 WHERE order_id = ${sql.uuid(orderId)}`;

function chunks<T>(items: T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));
}

/** Runs `work` over items, `concurrency` at a time. */
async function pool<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await work(item);
    }
  }));
}

async function timed(run: () => Promise<void>): Promise<number> {
  const started = process.hrtime.bigint();
  await run();
  return N / (Number(process.hrtime.bigint() - started) / 1e9);
}

const server = await startPostgres();
const scratch = await createScratchDatabase(server.url, 'bench');
const raw = new pg.Pool({ connectionString: scratch.url, max: C + 2 });
// DROP DATABASE ... WITH (FORCE) at the end terminates the idle clients; that is expected.
raw.on('error', () => undefined);
const db = pgDatabase({ pool: raw });
await migrateReferenceDatabase(db);

const orderIds = Array.from({ length: N }, () => randomUUID());
await raw.query('INSERT INTO orders (order_id) SELECT unnest($1::uuid[])', [orderIds]);

/** Fresh messages (new keys) for every run, so each run does N fresh claims. */
function messages() {
  return orderIds.map((orderId) => sqsRecord({ orderId }));
}

async function bareStatementMode(consumer: string) {
  const records = messages();
  for (const batch of chunks(records, BATCH)) {
    await pool(batch, C, async (record) => {
      const target: ClaimTarget = { consumer, key: record.messageId, hash: payloadHash(record.body), lockTimeoutMs: 5000 };
      const { text, values } = toPgQuery(guardedStatement(target, ship((JSON.parse(record.body) as Ship).orderId)));
      await raw.query(text, values);
    });
  }
}

async function bareTransactionMode(consumer: string) {
  const records = messages();
  for (const batch of chunks(records, BATCH)) {
    await pool(batch, C, async (record) => {
      const target: ClaimTarget = { consumer, key: record.messageId, hash: payloadHash(record.body), lockTimeoutMs: 5000 };
      const client = await raw.connect();
      try {
        await client.query('BEGIN');
        const claim = toPgQuery(claimStatement(target));
        await client.query(claim.text, claim.values);
        const effect = toPgQuery(ship((JSON.parse(record.body) as Ship).orderId));
        await client.query(effect.text, effect.values);
        await client.query('COMMIT');
      } finally {
        client.release();
      }
    });
  }
}

async function kit(options: InboxOptions<Ship>) {
  for (const batch of chunks(messages(), BATCH)) {
    const response = await processBatch(sqsEvent(...batch), lambdaContext(900_000), options);
    if (response.batchItemFailures.length > 0) throw new Error(`${response.batchItemFailures.length} messages failed in the benchmark`);
  }
}

const modes = {
  statement: {
    bare: (consumer: string) => bareStatementMode(consumer),
    kit: (consumer: string) => kit({ consumer, db, concurrency: C, statement: (m) => ship(m.orderId) }),
  },
  transaction: {
    bare: (consumer: string) => bareTransactionMode(consumer),
    kit: (consumer: string) => kit({ consumer, db, concurrency: C, handle: async (m, { tx }) => { await tx.query(ship(m.orderId)); } }),
  },
};

console.log(`sqs-inbox on PostgreSQL: ${N} messages, concurrency ${C}, batches of ${BATCH}, best of ${ROUNDS} rounds`);
console.log('mode         bare msg/s   kit msg/s   kit/bare');
for (const [name, mode] of Object.entries(modes)) {
  let bare = 0;
  let withKit = 0;
  for (let round = 0; round < ROUNDS; round += 1) {
    bare = Math.max(bare, await timed(() => mode.bare(`bare-${name}-${round}`)));
    withKit = Math.max(withKit, await timed(() => mode.kit(`kit-${name}-${round}`)));
  }
  console.log(`${name.padEnd(12)} ${bare.toFixed(0).padStart(10)}  ${withKit.toFixed(0).padStart(10)}   ${(withKit / bare * 100).toFixed(1).padStart(6)}%`);
}

await raw.end();
await scratch.drop();
await server.close();
