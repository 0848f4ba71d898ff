import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkChaos, type LaneEvidence } from '../../demo/chaos/chaos-check.js';
import { PURGE_AUDIT_SQL, readLaneEvidence, type LaneFacts } from '../../demo/chaos/chaos-evidence.js';
import { fifoSequences } from '../../demo/chaos/fifo-sequences.js';
import { settleDownstream } from '../../demo/downstream-accounts.js';
import { readNotices, readOutboxRows } from '../../demo/outbox-rows.js';
import { seedOrders } from '../../demo/order-rows.js';
import { seededRandom } from '../../demo/seeded-random.js';
import { orderWorkload, type Workload, type WorkerMode } from '../../demo/workload.js';
import { freshDatabase, type FreshDatabase } from '../support/database.js';

let database: FreshDatabase;

beforeEach(async () => {
  database = await freshDatabase();
  for (const statement of PURGE_AUDIT_SQL) await database.pool.query(statement);
});

afterEach(async () => {
  await database.close();
});

const workloadOf = (mode: WorkerMode): Workload =>
  orderWorkload({ orders: 6, poison: 1, stuck: 0, groups: 2, fifo: true, mode, runId: 'check', random: seededRandom(4) });

/** Writes each order's effect and claim as the worker would, `times` times for the orders named. */
async function applyAll(workload: Workload, mode: WorkerMode, consumer: string, times: ReadonlyMap<string, number> = new Map()): Promise<void> {
  await seedOrders(database.pool, workload.orders);
  for (const order of workload.orders) {
    for (let time = 0; time < (times.get(order.orderId) ?? 1); time += 1) {
      if (mode === 'statement') {
        await database.pool.query("UPDATE orders SET status = 'shipped', version = version + 1, updated_at = clock_timestamp() WHERE order_id = $1", [order.orderId]);
      } else {
        await database.pool.query('UPDATE orders SET paid_total = paid_total + amount, updated_at = clock_timestamp() WHERE order_id = $1', [order.orderId]);
        await database.pool.query('INSERT INTO order_payments (payment_id, order_id, amount) SELECT gen_random_uuid(), order_id, amount FROM orders WHERE order_id = $1', [order.orderId]);
      }
    }
    await database.pool.query("INSERT INTO consumed_message (consumer_name, message_id, payload_hash) VALUES ($1, $2, 'h')", [consumer, order.key]);
  }
  for (const key of workload.poisonKeys) {
    await database.pool.query("INSERT INTO consumed_message (consumer_name, message_id, payload_hash, status, error) VALUES ($1, $2, 'h', 'rejected', 'not JSON')", [consumer, key]);
    await keepRejected(consumer, key);
  }
}

/** The kept body of a rejected message, as the kit writes it beside the rejection. */
const keepRejected = (consumer: string, key: string) => database.pool.query(`INSERT INTO kept_message
  (consumer_name, message_key, kept_as, reason, source, body, body_encoding, body_bytes, kept_bytes, origin)
  VALUES ($1, $2, 'rejected', 'not JSON', 'sqs', '{', 'utf8', 1, 1, '{}')`, [consumer, key]);

const facts = (workload: Workload, mode: WorkerMode, consumer: string, sequence: readonly string[] = workload.keys): LaneFacts => ({
  lane: 'sqs-fifo', consumer, mode, workload, parked: [], notSent: new Set(), reached: new Set(), sequences: new Map([['customer-0', sequence]]),
});

const evidenceOf = async (lane: LaneFacts): Promise<LaneEvidence> => (await readLaneEvidence(database.pool, lane)).evidence;

describe('the chaos check, on a database state', () => {
  it('passes a run where every order applied once, the poison was rejected with its reason, in the queue\'s order', async () => {
    const workload = workloadOf('statement');
    await applyAll(workload, 'statement', 'chaos-fifo');

    const verdict = checkChaos([await evidenceOf(facts(workload, 'statement', 'chaos-fifo'))]);

    expect(verdict).toMatchObject({ ok: true, doubleEffects: 0, lost: 0, orderBreaks: 0, sumBreaks: [] });
    expect(verdict.lanes[0]).toMatchObject({ applied: 6, rejected: 1, inboxRowsMatch: true });
  });

  it('names the message whose effect was applied twice', async () => {
    const workload = workloadOf('statement');
    const twice = workload.orders[3]!;
    await applyAll(workload, 'statement', 'chaos-fifo', new Map([[twice.orderId, 2]]));

    const verdict = checkChaos([await evidenceOf(facts(workload, 'statement', 'chaos-fifo'))]);

    expect(verdict.ok).toBe(false);
    expect(verdict.doubleEffects).toBe(1);
    expect(verdict.broken).toEqual([{ lane: 'sqs-fifo', key: twice.key, problem: 'double effect' }]);
  });

  it('names a message neither applied, rejected nor in the DLQ as lost, and one in the DLQ with its reason as not lost', async () => {
    const workload = workloadOf('statement');
    await applyAll(workload, 'statement', 'chaos-fifo');
    const [lostOne, parkedOne] = [workload.orders[1]!, workload.orders[2]!];
    await database.pool.query('UPDATE orders SET version = 0 WHERE order_id = ANY($1::uuid[])', [[lostOne.orderId, parkedOne.orderId]]);
    await database.pool.query('DELETE FROM consumed_message WHERE message_id = ANY($1::text[])', [[lostOne.key, parkedOne.key]]);
    // The cleanup's trigger saw those deletes as purges; this state is of rows never written.
    await database.pool.query('DELETE FROM chaos_purged_inbox');

    const lane = { ...facts(workload, 'statement', 'chaos-fifo'), parked: [{ key: parkedOne.key, reason: 'failed 20 receives' }] };
    const verdict = checkChaos([await evidenceOf(lane)]);

    expect(verdict.broken).toEqual([{ lane: 'sqs-fifo', key: lostOne.key, problem: 'lost' }]);
    expect(verdict.lanes[0]).toMatchObject({ lost: 1, inDlq: 1, dlqReasons: { 'failed 20 receives': 1 }, inboxRowsMatch: true });
  });

  it("names the messages whose effect was written before an earlier one's of their group", async () => {
    const workload = workloadOf('statement');
    await applyAll(workload, 'statement', 'chaos-fifo');
    const orderKeys = workload.orders.map((order) => order.key);
    // The queue's order puts the fourth before the second and third: their effects came before it.
    const sequence = [orderKeys[0]!, orderKeys[3]!, orderKeys[1]!, orderKeys[2]!];

    const verdict = checkChaos([await evidenceOf(facts(workload, 'statement', 'chaos-fifo', sequence))]);

    expect(verdict.broken).toEqual([
      { lane: 'sqs-fifo', key: orderKeys[1], problem: 'order break', order: { sequence: 'customer-0', earlier: orderKeys[3], earlierAt: expect.any(BigInt), at: expect.any(BigInt) } },
      { lane: 'sqs-fifo', key: orderKeys[2], problem: 'order break', order: { sequence: 'customer-0', earlier: orderKeys[3], earlierAt: expect.any(BigInt), at: expect.any(BigInt) } },
    ]);
    expect(verdict.orderBreaks).toBe(2);
  });

  it('names an effect without its processed inbox row as unclaimed', async () => {
    const workload = workloadOf('statement');
    await applyAll(workload, 'statement', 'chaos-fifo');
    const unclaimed = workload.orders[4]!;
    await database.pool.query('DELETE FROM consumed_message WHERE message_id = $1', [unclaimed.key]);
    await database.pool.query('DELETE FROM chaos_purged_inbox');

    const verdict = checkChaos([await evidenceOf(facts(workload, 'statement', 'chaos-fifo'))]);

    expect(verdict.ok).toBe(false);
    expect(verdict.broken).toEqual([{ lane: 'sqs-fifo', key: unclaimed.key, problem: 'unclaimed effect' }]);
  });

  it('names poison found in the DLQ instead of rejected with its reason', async () => {
    const workload = workloadOf('statement');
    await applyAll(workload, 'statement', 'chaos-fifo');
    const poison = workload.poisonKeys[0]!;
    await database.pool.query('DELETE FROM consumed_message WHERE message_id = $1', [poison]);
    await database.pool.query('DELETE FROM chaos_purged_inbox');

    const lane = { ...facts(workload, 'statement', 'chaos-fifo'), parked: [{ key: poison, reason: 'failed 20 receives' }] };
    const verdict = checkChaos([await evidenceOf(lane)]);

    expect(verdict.broken).toEqual([{ lane: 'sqs-fifo', key: poison, problem: 'poison not rejected' }]);
    expect(verdict.lanes[0]).toMatchObject({ rejected: 0, lost: 1 });
  });

  it('takes poison parked behind a parked message of its group or partition as never tried, not as poison the inbox failed', async () => {
    const workload = workloadOf('statement');
    await applyAll(workload, 'statement', 'chaos-fifo');
    const poison = workload.poisonKeys[0]!;
    const stuck = workload.orders[0]!.key;
    await database.pool.query('DELETE FROM consumed_message WHERE message_id = $1', [poison]);
    await database.pool.query('DELETE FROM chaos_purged_inbox');
    const parked = [{ key: stuck, reason: 'RetryAttemptsExhausted' }, { key: poison, reason: 'RetryAttemptsExhausted' }];

    const behind = checkChaos([await evidenceOf({ ...facts(workload, 'statement', 'chaos-fifo'), parked, sequences: new Map([['orders-2', [stuck, poison]]]) })]);
    const ahead = checkChaos([await evidenceOf({ ...facts(workload, 'statement', 'chaos-fifo'), parked, sequences: new Map([['orders-2', [poison, stuck]]]) })]);

    expect(behind.broken).toEqual([]);
    expect(ahead.broken).toEqual([{ lane: 'sqs-fifo', key: poison, problem: 'poison not rejected' }]);
  });

  it('names a rejected message whose body the inbox did not keep', async () => {
    const workload = workloadOf('statement');
    await applyAll(workload, 'statement', 'chaos-fifo');
    const poison = workload.poisonKeys[0]!;
    await database.pool.query('DELETE FROM kept_message WHERE message_key = $1', [poison]);

    const verdict = checkChaos([await evidenceOf(facts(workload, 'statement', 'chaos-fifo'))]);

    expect(verdict.ok).toBe(false);
    expect(verdict.broken).toEqual([{ lane: 'sqs-fifo', key: poison, problem: 'rejected, its body not kept' }]);
    expect(verdict.lanes[0]).toMatchObject({ rejected: 1, keptRejected: 0 });
  });

  it('excuses a key the producer gave up on only while the queue or log shows no sign of it', async () => {
    const workload = workloadOf('statement');
    await applyAll(workload, 'statement', 'chaos-fifo');
    const gaveUp = workload.orders[2]!;
    await database.pool.query('UPDATE orders SET version = 0 WHERE order_id = $1', [gaveUp.orderId]);
    await database.pool.query('DELETE FROM consumed_message WHERE message_id = $1', [gaveUp.key]);
    await database.pool.query('DELETE FROM chaos_purged_inbox');
    const notSent = { ...facts(workload, 'statement', 'chaos-fifo'), notSent: new Set([gaveUp.key]) };

    const neverReached = checkChaos([await evidenceOf(notSent)]);
    // The send failed after a lost answer but wrote the record: it is in the log, and its effect is missing.
    const inTheLog = checkChaos([await evidenceOf({ ...notSent, reached: new Set([gaveUp.key]) })]);

    expect(neverReached).toMatchObject({ ok: true, lanes: [{ notSent: 1, lost: 0 }] });
    expect(inTheLog.broken).toEqual([{ lane: 'sqs-fifo', key: gaveUp.key, problem: 'lost' }]);
    expect(inTheLog.lanes[0]).toMatchObject({ notSent: 0, lost: 1 });
  });

  it('leaves a message redriven from the DLQ out of its group\'s order: its late effect breaks no later key of the group', async () => {
    const workload = workloadOf('statement');
    await applyAll(workload, 'statement', 'chaos-fifo');
    const [first, redriven, third, fourth] = workload.orders.map((order) => order.key);
    // Redriven after the rest of its group was consumed: its effect is written last.
    await database.pool.query('UPDATE orders SET updated_at = clock_timestamp() WHERE order_id = $1', [workload.orders[1]!.orderId]);
    const firstDeliveries = [first!, redriven!, third!, fourth!].map((key, index) => ({ key, group: 'customer-0', sequence: BigInt(index + 1) }));
    const lane = { ...facts(workload, 'statement', 'chaos-fifo'), sequences: fifoSequences(firstDeliveries, new Set([redriven!])) };

    const verdict = checkChaos([await evidenceOf(lane)]);

    expect(lane.sequences).toEqual(new Map([['customer-0', [first, third, fourth]]]));
    expect(verdict).toMatchObject({ ok: true, orderBreaks: 0 });
    // Kept in its group, the redriven key would make its group's later keys order breaks.
    const keptInGroup = checkChaos([await evidenceOf({ ...lane, sequences: fifoSequences(firstDeliveries, new Set()) })]);
    expect(keptInGroup.broken).toEqual([third, fourth].map((key) => ({ lane: 'sqs-fifo', key, problem: 'order break', order: expect.objectContaining({ sequence: 'customer-0', earlier: redriven }) })));
  });

  it('counts purged inbox rows with the ones left, and sees a row claimed again after its purge', async () => {
    const workload = workloadOf('statement');
    await applyAll(workload, 'statement', 'chaos-fifo');
    const purgedOne = workload.orders[0]!;
    await database.pool.query('DELETE FROM consumed_message WHERE message_id = $1', [purgedOne.key]);

    const afterPurge = checkChaos([await evidenceOf(facts(workload, 'statement', 'chaos-fifo'))]);
    await database.pool.query("INSERT INTO consumed_message (consumer_name, message_id, payload_hash) VALUES ('chaos-fifo', $1, 'h')", [purgedOne.key]);
    const claimedAgain = checkChaos([await evidenceOf(facts(workload, 'statement', 'chaos-fifo'))]);

    expect(afterPurge).toMatchObject({ ok: true, lanes: [{ purged: 1, inboxRowsMatch: true }] });
    expect(claimedAgain).toMatchObject({ ok: false, sumBreaks: ['sqs-fifo: inbox rows are not applied + rejected'] });
  });

  it('in transaction mode, finds a ledger whose payments and paid totals differ', async () => {
    const workload = workloadOf('transaction');
    await applyAll(workload, 'transaction', 'chaos-standard');
    await database.pool.query('INSERT INTO order_payments (payment_id, order_id, amount) VALUES (gen_random_uuid(), $1, 1)', [workload.orders[0]!.orderId]);

    const verdict = checkChaos([await evidenceOf(facts(workload, 'transaction', 'chaos-standard'))]);

    expect(verdict).toMatchObject({ ok: false, sumBreaks: ['sqs-fifo: ledger sums differ'] });
  });
});

/**
 * Writes the second hop as its workers would: an OrderShipped outbox row per order (in its group's
 * order, dispatched unless named), then the notices of `noticeOrder` (order indexes, in the order written).
 */
async function shipDownstream(workload: Workload, noticeOrder: readonly number[], open: readonly number[] = []): Promise<string[]> {
  const ids: string[] = [];
  for (const [index, order] of workload.orders.entries()) {
    const { rows: [row] } = await database.pool.query<{ id: string }>(
      `INSERT INTO outbox_message (id, consumer_name, message_key, target, body, group_id, group_seq, size_bytes, dispatched_at)
       VALUES (gen_random_uuid(), 'chaos-fifo', $1, 'shipmentNotices', $2, 'customer-0', $3, 10, CASE WHEN $4 THEN NULL ELSE now() END) RETURNING id`,
      [order.key, JSON.stringify({ type: 'OrderShipped', orderId: order.orderId }), index + 1, open.includes(index)]);
    ids.push(row!.id);
  }
  for (const index of noticeOrder) {
    await database.pool.query("INSERT INTO shipment_notice (order_id, message_key, group_id) VALUES ($1, $2, 'customer-0')", [workload.orders[index]!.orderId, ids[index]]);
  }
  return ids;
}

/** The check with the second hop's accounts, settled from the rows and notices written (no notice DLQ). */
async function checkWithDownstream(workload: Workload, shipped: readonly string[] = workload.orders.map((order) => order.orderId)) {
  const orderIds = workload.orders.map((order) => order.orderId);
  const accounts = settleDownstream({
    shipped, rows: await readOutboxRows(database.pool, 'chaos-fifo', workload.keys), notices: await readNotices(database.pool, orderIds), parked: [],
  });
  return checkChaos([await evidenceOf(facts(workload, 'statement', 'chaos-fifo'))], { ...accounts, lane: 'shipment-notices' });
}

describe('the chaos check of the second hop (outbox rows, shipment notices), on a database state', () => {
  it('passes a hop where every shipped order has one notice, in its group\'s order, every row dispatched', async () => {
    const workload = workloadOf('statement');
    await applyAll(workload, 'statement', 'chaos-fifo');
    await shipDownstream(workload, [0, 1, 2, 3, 4, 5]);

    const verdict = await checkWithDownstream(workload);

    expect(verdict).toMatchObject({ ok: true, broken: [], doubleEffects: 0, lost: 0, orderBreaks: 0, downstream: { notices: 6, notDispatched: 0, lane: 'shipment-notices' } });
  });

  it('names the order with two notices as a double effect downstream, and the shipped order without one as lost downstream, in the totals', async () => {
    const workload = workloadOf('statement');
    await applyAll(workload, 'statement', 'chaos-fifo');
    await shipDownstream(workload, [0, 2, 3, 3, 4, 5]);

    const verdict = await checkWithDownstream(workload);

    expect(verdict.ok).toBe(false);
    expect(verdict.broken).toEqual([
      { lane: 'shipment-notices', key: workload.orders[3]!.key, problem: 'double effect downstream' },
      { lane: 'shipment-notices', key: workload.orders[1]!.key, problem: 'lost downstream' },
    ]);
    expect(verdict).toMatchObject({ doubleEffects: 1, lost: 1, orderBreaks: 0, lanes: [{ doubleEffects: 0, lost: 0 }] });
  });

  it('names a notice written before an earlier row\'s of its group as an order break downstream, and breaks on an outbox row not dispatched', async () => {
    const workload = workloadOf('statement');
    await applyAll(workload, 'statement', 'chaos-fifo');
    const ids = await shipDownstream(workload, [0, 2, 1, 3, 4, 5], [5]);

    const verdict = await checkWithDownstream(workload);

    expect(verdict.broken).toEqual([{ lane: 'shipment-notices', key: ids[1], problem: 'order break downstream' }]);
    expect(verdict).toMatchObject({ ok: false, orderBreaks: 1, sumBreaks: ['shipment-notices: 1 outbox rows not dispatched'] });
  });

  it('breaks on a notice of an order that never shipped (a message sent for a transaction that rolled back)', async () => {
    const workload = workloadOf('statement');
    await applyAll(workload, 'statement', 'chaos-fifo');
    await shipDownstream(workload, [0, 1, 2, 3, 4, 5]);
    // The last order's effect is gone (its transaction rolled back), yet its row and notice went out.
    const shipped = workload.orders.slice(0, -1).map((order) => order.orderId);

    const verdict = await checkWithDownstream(workload, shipped);

    expect(verdict).toMatchObject({ ok: false, broken: [], downstream: { phantom: 2 } });
    expect(verdict.sumBreaks).toEqual([expect.stringMatching(/^shipment-notices: 2 phantom notices/)]);
  });
});
