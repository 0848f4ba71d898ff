import type { Workload } from './workload.js';

/** What the database and the DLQ say became of the workload. */
export interface Evidence {
  /** Times each order's effect was applied, by order id, read from its row. */
  readonly effects: ReadonlyMap<string, number>;
  /** Inbox rows of the consumer: status by idempotency key. */
  readonly inbox: ReadonlyMap<string, string>;
  /** The idempotency key of each message found in the DLQ. */
  readonly parked: readonly string[];
  /** Keys the producer could not send at all: nothing is expected of them. */
  readonly notSent: ReadonlySet<string>;
  /** Keys whose rejected message the inbox kept (a `rejected` kept_message row). */
  readonly kept: ReadonlySet<string>;
}

/** The run's accounts, every figure from the evidence. */
export interface Accounts {
  /** Orders whose effect is in the database. */
  readonly applied: number;
  /** Orders whose effect was applied more than once: must be 0. */
  readonly doubleEffects: number;
  /** Orders whose effect is in the database without their `processed` claim beside it: must be 0. */
  readonly unclaimedEffects: number;
  /** Inbox rows with status `rejected`. */
  readonly rejected: number;
  /** Of those, the ones whose body the inbox kept. */
  readonly keptRejected: number;
  /** Rejected inbox rows without their kept body: must be 0. */
  readonly rejectedUnkept: number;
  /** Messages in the DLQ. */
  readonly inDlq: number;
  /** Of those, the messages of orders a stuck session held locked. */
  readonly stuckInDlq: number;
  /**
   * Messages sent that did not end as the runtime's rules say: an order neither applied nor in the
   * DLQ, a poison message not rejected (in the DLQ included: it must never be retried). Must be 0.
   */
  readonly lost: number;
  /** The keys of the lost messages, to look into. */
  readonly lostKeys: readonly string[];
}

/**
 * Settles a run from what was written, not from what the worker said: an order counts as applied
 * when its row shows the effect, twice when it shows it more than once, and unclaimed when it shows
 * it without a `processed` inbox row; an order message is lost when its effect is missing and it is
 * not in the DLQ; a poison message is lost when it has no rejected row; a rejected row without its
 * kept body counts as unkept.
 *
 * @example
 * ```ts
 * const { doubleEffects, lost } = settle(workload, { effects, inbox, parked, notSent, kept });
 * ```
 */
export function settle(workload: Workload, evidence: Evidence): Accounts {
  const parked = new Set(evidence.parked);
  let applied = 0;
  let doubleEffects = 0;
  let unclaimedEffects = 0;
  const lostKeys: string[] = [];
  for (const order of workload.orders) {
    const effects = evidence.effects.get(order.orderId) ?? 0;
    if (effects >= 1) applied += 1;
    if (effects > 1) doubleEffects += 1;
    if (effects >= 1 && evidence.inbox.get(order.key) !== 'processed') unclaimedEffects += 1;
    if (effects === 0 && !parked.has(order.key) && !evidence.notSent.has(order.key)) lostKeys.push(order.key);
  }
  for (const key of workload.poisonKeys) {
    if (evidence.inbox.get(key) !== 'rejected' && !evidence.notSent.has(key)) lostKeys.push(key);
  }
  const rejectedKeys = [...evidence.inbox].filter(([, status]) => status === 'rejected').map(([key]) => key);
  const rejected = rejectedKeys.length;
  const keptRejected = rejectedKeys.filter((key) => evidence.kept.has(key)).length;
  const stuckKeys = new Set(workload.orders.filter((order) => order.stuck).map((order) => order.key));
  const stuckInDlq = evidence.parked.filter((key) => stuckKeys.has(key)).length;
  return { applied, doubleEffects, unclaimedEffects, rejected, keptRejected, rejectedUnkept: rejected - keptRejected, inDlq: evidence.parked.length, stuckInDlq, lost: lostKeys.length, lostKeys };
}
