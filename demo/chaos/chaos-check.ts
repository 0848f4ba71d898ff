import type { DownstreamAccounts } from '../downstream-accounts.js';
import type { Workload, WorkerMode } from '../workload.js';

/** An inbox row of a lane's consumer, as the table holds it or as the cleanup purged it. */
export interface InboxRow {
  readonly status: string;
  readonly error: string | null;
}

/** What the database, the queues, the DLQs and the Kafka log say became of one lane's workload. */
export interface LaneEvidence {
  readonly lane: string;
  readonly consumer: string;
  readonly mode: WorkerMode;
  readonly workload: Workload;
  /** Times each order's effect was applied, by order id, from its row. */
  readonly effects: ReadonlyMap<string, number>;
  /** The consumer's inbox rows now, by key. */
  readonly inbox: ReadonlyMap<string, InboxRow>;
  /** The consumer's inbox rows the cleanup purged during the run, by key. */
  readonly purged: ReadonlyMap<string, InboxRow>;
  /** Inbox rows of the consumer in all (now plus purged), whatever their key. */
  readonly inboxRowCount: number;
  /** Keys whose rejected message the inbox kept (a `rejected` kept_message row). */
  readonly kept: ReadonlySet<string>;
  /** What the DLQ (Kafka: the on-failure destination) holds at the end: key and why it is there. */
  readonly parked: readonly { readonly key: string; readonly reason: string }[];
  /** Keys the producer gave up on: nothing is expected of them unless the queue or log shows them (`reached`). */
  readonly notSent: ReadonlySet<string>;
  /**
   * Keys the queue or log shows it held: Kafka, the keys in the log; SQS, the keys delivered to a
   * poller or found in the DLQ. A send that failed after a lost answer may have written its message,
   * so a key the producer gave up on is excused only when it is not among these.
   */
  readonly reached: ReadonlySet<string>;
  /**
   * The queue's order: per FIFO group (by sequence number) or Kafka partition (by offset), the
   * keys of the messages that stayed in the queue (a message redriven from the DLQ left its group).
   */
  readonly sequences: ReadonlyMap<string, readonly string[]>;
  /** When each applied key's effect was written, in microseconds (the order row's `updated_at`). */
  readonly appliedAt: ReadonlyMap<string, bigint>;
  /** Transaction mode: cents of the payments, of the orders' paid totals, and of the applied orders' amounts. */
  readonly ledger?: { readonly payments: bigint; readonly paidTotals: bigint; readonly appliedAmounts: bigint };
}

/** A message that did not end as the rules say. */
export interface BrokenMessage {
  readonly lane: string;
  readonly key: string;
  readonly problem: 'double effect' | 'unclaimed effect' | 'lost' | 'order break' | 'poison not rejected' | 'rejected, its body not kept'
    | 'double effect downstream' | 'lost downstream' | 'order break downstream';
  /**
   * An order break's place: its FIFO group or Kafka partition, and the key earlier in the queue whose
   * effect was written after this one's, with both times (microseconds, the order rows' `updated_at`).
   */
  readonly order?: { readonly sequence: string; readonly earlier: string; readonly earlierAt: bigint; readonly at: bigint };
}

/** One lane's accounts, every figure from the evidence. */
export interface LaneAccounts {
  readonly lane: string;
  readonly consumer: string;
  readonly messages: number;
  readonly applied: number;
  readonly rejected: number;
  /** Of the rejected, those whose body the inbox kept; the others break the run. */
  readonly keptRejected: number;
  readonly inDlq: number;
  readonly notSent: number;
  readonly doubleEffects: number;
  readonly lost: number;
  readonly orderBreaks: number;
  /** Inbox rows purged by the cleanup during the run. */
  readonly purged: number;
  /** Inbox rows (now plus purged) equal to applied plus rejected. */
  readonly inboxRowsMatch: boolean;
  /** Transaction mode: payments, paid totals and amounts of the applied orders all equal; `undefined` in statement mode. */
  readonly ledgerEqual: boolean | undefined;
  /** DLQ messages by reason. */
  readonly dlqReasons: Readonly<Record<string, number>>;
}

/** The check of a whole run. */
export interface ChaosVerdict {
  readonly lanes: readonly LaneAccounts[];
  /** The second hop's accounts (`settleDownstream`), when the run had it. */
  readonly downstream: (DownstreamAccounts & { readonly lane: string }) | undefined;
  /** Every broken message, in lane order. */
  readonly broken: readonly BrokenMessage[];
  readonly doubleEffects: number;
  readonly lost: number;
  readonly orderBreaks: number;
  /** Lanes whose inbox rows or ledger do not add up, and the second hop's outbox rows not dispatched. */
  readonly sumBreaks: readonly string[];
  readonly ok: boolean;
}

/** Counts, per queue order, the keys whose effect was written before an earlier key's. */
function orderBreaksOf(evidence: LaneEvidence, broken: BrokenMessage[]): number {
  let breaks = 0;
  for (const [sequence, keys] of evidence.sequences) {
    let last: { key: string; at: bigint } | undefined;
    for (const key of keys) {
      const at = evidence.appliedAt.get(key);
      if (at === undefined) continue;
      if (last !== undefined && at < last.at) {
        breaks += 1;
        broken.push({ lane: evidence.lane, key, problem: 'order break', order: { sequence, earlier: last.key, earlierAt: last.at, at } });
      }
      if (last === undefined || at > last.at) last = { key, at };
    }
  }
  return breaks;
}

/**
 * Whether a parked message waited behind another parked one of its FIFO group or Kafka partition:
 * the event source skips what follows a failure there, so it reached the DLQ never tried.
 */
function behindParked(evidence: LaneEvidence, parked: ReadonlyMap<string, string>, key: string): boolean {
  const poison = new Set(evidence.workload.poisonKeys);
  return [...evidence.sequences.values()].some((keys) => keys.slice(0, Math.max(0, keys.indexOf(key))).some((earlier) => parked.has(earlier) && !poison.has(earlier)));
}

function checkLane(evidence: LaneEvidence, broken: BrokenMessage[]): LaneAccounts {
  const parked = new Map(evidence.parked.map((entry) => [entry.key, entry.reason]));
  const rowOf = (key: string) => evidence.inbox.get(key) ?? evidence.purged.get(key);
  const brokenBefore = broken.length;
  const notSent = (key: string) => evidence.notSent.has(key) && !evidence.reached.has(key);
  let applied = 0;
  let doubleEffects = 0;
  for (const order of evidence.workload.orders) {
    const effects = evidence.effects.get(order.orderId) ?? 0;
    if (effects >= 1) applied += 1;
    if (effects > 1) {
      doubleEffects += 1;
      broken.push({ lane: evidence.lane, key: order.key, problem: 'double effect' });
    } else if (effects === 1 && rowOf(order.key)?.status !== 'processed') {
      broken.push({ lane: evidence.lane, key: order.key, problem: 'unclaimed effect' });
    } else if (effects === 0 && !parked.has(order.key) && !notSent(order.key)) {
      broken.push({ lane: evidence.lane, key: order.key, problem: 'lost' });
    }
  }
  let rejected = 0;
  let keptRejected = 0;
  for (const key of evidence.workload.poisonKeys) {
    const row = rowOf(key);
    if (row?.status === 'rejected' && row.error !== null && row.error !== '') {
      rejected += 1;
      if (evidence.kept.has(key)) keptRejected += 1;
      else broken.push({ lane: evidence.lane, key, problem: 'rejected, its body not kept' });
    } else if (parked.has(key)) {
      if (!behindParked(evidence, parked, key)) broken.push({ lane: evidence.lane, key, problem: 'poison not rejected' });
    }
    else if (!notSent(key)) broken.push({ lane: evidence.lane, key, problem: 'lost' });
  }
  const lost = broken.slice(brokenBefore).filter((entry) => entry.problem === 'lost' || entry.problem === 'poison not rejected').length;
  const orderBreaks = orderBreaksOf(evidence, broken);
  const dlqReasons: Record<string, number> = {};
  for (const reason of parked.values()) dlqReasons[reason] = (dlqReasons[reason] ?? 0) + 1;
  const ledger = evidence.ledger;
  return {
    lane: evidence.lane,
    consumer: evidence.consumer,
    messages: evidence.workload.messages.length,
    applied,
    rejected,
    keptRejected,
    inDlq: parked.size,
    notSent: [...evidence.notSent].filter(notSent).length,
    doubleEffects,
    lost,
    orderBreaks,
    purged: evidence.purged.size,
    inboxRowsMatch: evidence.inboxRowCount === applied + rejected,
    ledgerEqual: ledger === undefined ? undefined : ledger.payments === ledger.paidTotals && ledger.paidTotals === ledger.appliedAmounts,
    dlqReasons,
  };
}

/**
 * Checks a chaos run from what was written and what the queues hold, never from the workers'
 * counts: each order applied exactly once (and claimed), rejected with its reason and its body kept (poison), or in
 * the DLQ with its reason; no double effect, nothing lost, no effect written out of its FIFO
 * group's or partition's order; the inbox rows of each consumer (the purged ones included) as many
 * as its applied and rejected messages; in transaction mode the payments, the paid totals and the
 * applied orders' amounts equal. With the second hop's accounts (`downstream`, settled from the
 * outbox rows, the notices and the notice DLQ), its double effects, lost notices and order breaks
 * per group count in the totals, named by the first hop's key of their order (an order break by the
 * notice's key), and an outbox row not dispatched breaks the run.
 *
 * @example
 * ```ts
 * const verdict = checkChaos([fifoEvidence, standardEvidence, kafkaEvidence], { lane: 'shipment-notices', ...settleDownstream(hopEvidence) });
 * if (!verdict.ok) console.error(verdict.broken.slice(0, 5));
 * ```
 */
export function checkChaos(lanes: readonly LaneEvidence[], downstream?: DownstreamAccounts & { readonly lane: string }): ChaosVerdict {
  const broken: BrokenMessage[] = [];
  const accounts = lanes.map((lane) => checkLane(lane, broken));
  const sumBreaks = accounts.flatMap((lane) => [
    ...(lane.inboxRowsMatch ? [] : [`${lane.lane}: inbox rows are not applied + rejected`]),
    ...(lane.ledgerEqual === false ? [`${lane.lane}: ledger sums differ`] : []),
  ]);
  if (downstream !== undefined) {
    const keyOf = new Map(lanes.flatMap((lane) => lane.workload.orders.map((order) => [order.orderId, order.key] as const)));
    const named = (orderIds: readonly string[], problem: BrokenMessage['problem']) =>
      orderIds.map((orderId): BrokenMessage => ({ lane: downstream.lane, key: keyOf.get(orderId) ?? orderId, problem }));
    broken.push(...named(downstream.doubleEffectOrders, 'double effect downstream'), ...named(downstream.lostOrders, 'lost downstream'),
      ...downstream.orderBreakKeys.map((key): BrokenMessage => ({ lane: downstream.lane, key, problem: 'order break downstream' })));
    if (downstream.notDispatched > 0) sumBreaks.push(`${downstream.lane}: ${downstream.notDispatched} outbox rows not dispatched`);
    if (downstream.phantom > 0) sumBreaks.push(`${downstream.lane}: ${downstream.phantom} phantom notices or outbox rows (of orders not shipped, or keys of no outbox row)`);
  }
  const total = (pick: (lane: LaneAccounts | DownstreamAccounts) => number) => [...accounts, ...(downstream === undefined ? [] : [downstream])].reduce((sum, lane) => sum + pick(lane), 0);
  return {
    lanes: accounts,
    downstream,
    broken,
    doubleEffects: total((lane) => lane.doubleEffects),
    lost: total((lane) => lane.lost),
    orderBreaks: total((lane) => lane.orderBreaks),
    sumBreaks,
    ok: broken.length === 0 && sumBreaks.length === 0,
  };
}
