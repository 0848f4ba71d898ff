/** One outbox row of the order worker, as the database holds it at the end of a run. */
export interface OutboxRowRecord {
  /** The row's id: the notice message's idempotency key. */
  readonly id: string;
  /** The order its OrderShipped names. */
  readonly orderId: string;
  readonly groupId: string | null;
  /** Its place in its group: the order its group's notices must keep. */
  readonly groupSeq: number | null;
  readonly dispatched: boolean;
  /** Marked by a relay run (the lease holder that marked it), not by the invocation that wrote it. */
  readonly byRelay: boolean;
}

/** A shipment notice, in the order the notices were written. */
export interface NoticeRecord {
  readonly orderId: string;
  /** The idempotency key it came with. */
  readonly key: string;
  readonly groupId: string | null;
}

/** What the database and the notice DLQ say became of the second hop. */
export interface DownstreamEvidence {
  /** Orders whose first-hop effect is in the database: each must end with exactly one notice. */
  readonly shipped: readonly string[];
  readonly rows: readonly OutboxRowRecord[];
  readonly notices: readonly NoticeRecord[];
  /** The idempotency key of each message found in the notice DLQ. */
  readonly parked: readonly string[];
}

/** The second hop's accounts, every figure from the evidence. */
export interface DownstreamAccounts {
  /** Rows sent and marked by the invocation that wrote them, after its commit. */
  readonly sentAfterCommit: number;
  /** Rows sent and marked by a relay run. */
  readonly sentByRelay: number;
  /** Rows not dispatched at the end (still open, or failed): must be 0. */
  readonly notDispatched: number;
  readonly notices: number;
  /** Shipped orders with more than one notice: must be 0. */
  readonly doubleEffects: number;
  readonly doubleEffectOrders: readonly string[];
  /** Shipped orders without a notice and not in the notice DLQ: must be 0. */
  readonly lost: number;
  readonly lostOrders: readonly string[];
  /** Notices written before one that precedes them in their group: must be 0. */
  readonly orderBreaks: number;
  /**
   * Notices of an order not shipped or whose key is no outbox row's id, and outbox rows of an order
   * not shipped: a message sent for a transaction that rolled back, what an outbox prevents. Must be 0.
   */
  readonly phantom: number;
  /** The idempotency keys of the notices written out of their group's order. */
  readonly orderBreakKeys: readonly string[];
  /** Messages in the notice DLQ. */
  readonly inDlq: number;
}

/**
 * Settles the second hop from what was written: every shipped order must have exactly one notice
 * (a second is a double effect, none a loss unless its message is in the notice DLQ), every outbox
 * row must be dispatched, and in each group the notices must follow their rows' order (a notice
 * whose row comes before the previous notice's row is an order break); a notice or row of an order
 * not shipped, or a notice whose key is no row's, is phantom.
 *
 * @example
 * ```ts
 * const { doubleEffects, lost, orderBreaks } = settleDownstream({ shipped, rows, notices, parked });
 * ```
 */
export function settleDownstream(evidence: DownstreamEvidence): DownstreamAccounts {
  const noticesOf = new Map<string, number>();
  for (const notice of evidence.notices) noticesOf.set(notice.orderId, (noticesOf.get(notice.orderId) ?? 0) + 1);
  const parked = new Set(evidence.parked);
  const rowsOf = new Map<string, OutboxRowRecord[]>();
  for (const row of evidence.rows) rowsOf.set(row.orderId, [...(rowsOf.get(row.orderId) ?? []), row]);
  const doubleEffectOrders: string[] = [];
  const lostOrders: string[] = [];
  for (const orderId of evidence.shipped) {
    const count = noticesOf.get(orderId) ?? 0;
    if (count > 1) doubleEffectOrders.push(orderId);
    if (count === 0 && !(rowsOf.get(orderId) ?? []).some((row) => parked.has(row.id))) lostOrders.push(orderId);
  }
  const seqOf = new Map(evidence.rows.map((row) => [row.id, row.groupSeq]));
  const lastSeq = new Map<string, number>();
  const orderBreakKeys: string[] = [];
  for (const notice of evidence.notices) {
    const seq = seqOf.get(notice.key);
    if (seq === undefined || seq === null || notice.groupId === null) continue;
    const last = lastSeq.get(notice.groupId);
    if (last !== undefined && seq < last) orderBreakKeys.push(notice.key);
    else lastSeq.set(notice.groupId, seq);
  }
  const shipped = new Set(evidence.shipped);
  const phantom = evidence.notices.filter((notice) => !shipped.has(notice.orderId) || !seqOf.has(notice.key)).length
    + evidence.rows.filter((row) => !shipped.has(row.orderId)).length;
  const dispatched = evidence.rows.filter((row) => row.dispatched);
  return {
    sentAfterCommit: dispatched.filter((row) => !row.byRelay).length,
    sentByRelay: dispatched.filter((row) => row.byRelay).length,
    notDispatched: evidence.rows.length - dispatched.length,
    notices: evidence.notices.length,
    doubleEffects: doubleEffectOrders.length,
    doubleEffectOrders,
    lost: lostOrders.length,
    lostOrders,
    orderBreaks: orderBreakKeys.length,
    orderBreakKeys,
    phantom,
    inDlq: evidence.parked.length,
  };
}
