import { describe, expect, it } from 'vitest';
import { LocalConfigError } from '../../local/errors.js';
import { sqsRecord } from '../support/sqs-events.js';
import { settle } from '../../demo/accounts.js';
import { faultPlan } from '../../demo/fault-plan.js';
import { runMainJob } from '../../demo/main-job.js';
import { progressBar } from '../../demo/progress-bar.js';
import { seededRandom } from '../../demo/seeded-random.js';
import { orderWorkload, type Workload } from '../../demo/workload.js';

const workload = (options: Partial<Parameters<typeof orderWorkload>[0]> = {}): Workload =>
  orderWorkload({ orders: 4, poison: 2, stuck: 1, groups: 2, fifo: true, mode: 'statement', runId: 'r1', random: seededRandom(1), ...options });

describe('the workload', () => {
  it('sends one message per order with a stable key, spread over groups on FIFO, a stuck order in a group of its own', () => {
    const { orders, messages, poisonKeys } = workload({ poison: 0 });

    expect(messages.map((message) => message.key)).toEqual(orders.map((order) => `ship-${order.orderId}`));
    expect(messages.map((message) => message.groupId)).toEqual([`stuck-${orders[0]!.orderId}`, 'customer-1', 'customer-0', 'customer-1']);
    expect(orders.map((order) => order.stuck)).toEqual([true, false, false, false]);
    expect(poisonKeys).toEqual([]);
  });

  it('pays each order its own amount in transaction mode, and has no groups on a standard queue', () => {
    const { orders, messages } = workload({ mode: 'transaction', fifo: false, poison: 0 });

    expect(messages.map((message) => (message.body as { amount: string }).amount)).toEqual(orders.map((order) => order.amount));
    expect(orders.map((order) => /^\d+\.\d{2}$/.test(order.amount) && Number(order.amount) >= 1)).toEqual([true, true, true, true]);
    expect(messages.map((message) => message.groupId === undefined && message.key?.startsWith('pay-'))).toEqual([true, true, true, true]);
  });

  it('gives one order in twenty a key with non-ASCII letters, as real keys have', () => {
    const { orders } = workload({ orders: 80, poison: 0 });
    const nonAscii = orders.filter((order) => /[^\x20-\x7e]/.test(order.key));

    expect(nonAscii.map((order) => order.key.split('-').slice(0, 2).join('-'))).toEqual(['ship-Zürich', 'ship-Łódź', 'ship-São', 'ship-東京']);
    expect(nonAscii.map((order) => orders.indexOf(order))).toEqual([19, 39, 59, 79]);
  });

  it('mixes in poison that is not JSON or fails the schema', () => {
    const { messages, poisonKeys } = workload();
    const poison = messages.filter((message) => poisonKeys.includes(message.key!)).map((message) => message.body as string);

    expect(poisonKeys).toEqual(['poison-r1-0', 'poison-r1-1']);
    expect(() => JSON.parse(poison.find((body) => body.startsWith('{"orderId": 0'))!)).toThrow(SyntaxError);
    expect(JSON.parse(poison.find((body) => body.includes('not-a-uuid'))!).orderId).toBe('not-a-uuid-1');
  });
});

describe('the accounts are settled from the evidence', () => {
  it('counts an order applied once, twice, unclaimed, parked or lost, and a poison message rejected (kept or not) or lost', () => {
    const { orders, poisonKeys, messages, keys } = workload({ orders: 6, stuck: 1, poison: 3 });
    const [stuck, once, twice, unclaimed, lost, notSent] = orders as [typeof orders[0], typeof orders[0], typeof orders[0], typeof orders[0], typeof orders[0], typeof orders[0]];
    const accounts = settle({ orders, poisonKeys, messages, keys }, {
      effects: new Map([[once.orderId, 1], [twice.orderId, 2], [unclaimed.orderId, 1]]),
      inbox: new Map([[once.key, 'processed'], [twice.key, 'processed'], [poisonKeys[0]!, 'rejected'], [poisonKeys[1]!, 'rejected']]),
      // A poison message in the DLQ was retried, which the runtime never does: it is lost all the same.
      parked: [stuck.key, poisonKeys[2]!],
      notSent: new Set([notSent.key]),
      kept: new Set([poisonKeys[0]!]),
    });

    expect(accounts).toEqual({
      applied: 3, doubleEffects: 1, unclaimedEffects: 1, rejected: 2, keptRejected: 1, rejectedUnkept: 1, inDlq: 2, stuckInDlq: 1, lost: 2, lostKeys: [lost.key, poisonKeys[2]],
    });
  });
});

describe('the fault plan', () => {
  const batch = (size: number, receiveCount = 1) => Array.from({ length: size }, () => sqsRecord({}, { receiveCount }));
  const rates = { crashRate: 1, crashes: ['after-commit'] as const, maxReceiveCount: 5, deliverTwiceRate: 1, producerRetryRate: 1 };

  it('injects each fault at its rate, and none at rate 0', () => {
    const never = faultPlan({ ...rates, crashRate: 0, deliverTwiceRate: 0, producerRetryRate: 0 }, 'orders', seededRandom(1));
    const always = faultPlan(rates, 'orders', seededRandom(1));
    const message = { queueName: 'orders', messageId: 'm', body: '{}', receiveCount: 1, groupId: undefined, copies: 0 };

    expect(never.crashAt(batch(10))).toBeUndefined();
    expect(never.sqsFaults.deliverTwice!(message)).toBe(false);
    expect(always.crashAt(batch(10))).toMatchObject({ when: 'after-commit', at: expect.any(Number) });
    expect(always.crashAt([])).toBeUndefined();
    expect(always.sqsFaults.deliverTwice!(message)).toBe(true);
    expect(always.sqsFaults.deliverTwice!({ ...message, receiveCount: 2 })).toBe(false);
    expect(always.sqsFaults.deliverTwice!({ ...message, receiveCount: 2, copies: 1 })).toBe(false);
    const thrice = faultPlan({ ...rates, maxCopies: 3 }, 'orders', seededRandom(1));
    expect(thrice.sqsFaults.deliverTwice!({ ...message, receiveCount: 2, copies: 1 })).toBe(true);
    expect(thrice.sqsFaults.deliverTwice!({ ...message, receiveCount: 3, copies: 2 })).toBe(false);
    expect(always.sqsFaults.deliverTwice!({ ...message, queueName: 'orders-dlq' })).toBe(false);
    expect(always.sqsFaults.loseResponse!({ operation: 'SendMessageBatch', queueName: 'orders' })).toBe(true);
    expect(always.sqsFaults.loseResponse!({ operation: 'DeleteMessageBatch', queueName: 'orders' })).toBe(false);
    expect(always.sqsFaults.failSendEntry!({ queueName: 'orders', id: '0', body: '{}' })).toBe(true);
    expect(always.producerRetries).toEqual({ lostAnswers: 1, failedEntries: 1 });
  });

  it('crashes at a commit point inside the batch', () => {
    const plan = faultPlan({ ...rates, crashes: ['before-commit', 'after-commit'] }, 'orders', seededRandom(9));
    const points = Array.from({ length: 200 }, () => plan.crashAt(batch(3))!);

    expect(new Set(points.map((point) => point.at))).toEqual(new Set([1, 2, 3]));
    expect(new Set(points.map((point) => point.when))).toEqual(new Set(['before-commit', 'after-commit']));
  });

  it('spares a batch holding a message on its last receive, so crashes alone never send one to the DLQ', () => {
    const plan = faultPlan(rates, 'orders', seededRandom(1));

    expect(plan.crashAt([...batch(3), ...batch(1, 4)])).toMatchObject({ when: expect.stringMatching(/^(before|after)-commit$/), at: expect.any(Number) });
    expect(plan.crashAt([...batch(3), ...batch(1, 5)])).toBeUndefined();
  });
});

describe('the progress bar', () => {
  it('fills with the share settled', () => {
    expect(progressBar({ settled: 1500, total: 3000, elapsedMs: 4200 })).toBe(`[${'#'.repeat(15)}${'.'.repeat(15)}] 1500/3000  4.2 s`);
    expect(progressBar({ settled: 0, total: 0, elapsedMs: 0 })).toBe(`[${'#'.repeat(30)}] 0/0  0.0 s`);
  });
});

describe('main job options', () => {
  it.each([
    [{ orders: 0 }, /orders must be a whole number from 1/],
    [{ crashRate: 1.5 }, /crashRate must be a share from 0 to 1, but 1.5/],
    [{ queue: 'lifo' as 'fifo' }, /queue must be 'fifo' or 'standard', but "lifo"/],
    [{ mode: 'batch' as 'statement' }, /mode must be 'statement' or 'transaction'/],
    [{ crashes: [] }, /crashes must list/],
    [{ stuck: 5, orders: 4 }, /stuck must be a whole number from 0 to 4/],
  ])('refuses %o before starting anything', async (options, message) => {
    await expect(runMainJob(options)).rejects.toThrow(LocalConfigError);
    await expect(runMainJob(options)).rejects.toThrow(message);
  });
});
