/** The first delivery of a FIFO message, as the poller reported it. */
export interface FirstDelivery {
  readonly key: string;
  readonly group: string;
  /** The sequence number SQS gave the message: its place in its group. */
  readonly sequence: bigint;
}

/**
 * The queue's order per FIFO group: the keys by sequence number, without the keys the DLQ held at
 * the redrive. Such a message left its group; redriven, it comes after its group's later messages,
 * which are not order breaks for it.
 *
 * @example
 * ```ts
 * const sequences = fifoSequences(firstDeliveries, new Set(['order-7']));
 * ```
 */
export function fifoSequences(deliveries: readonly FirstDelivery[], redriven: ReadonlySet<string>): Map<string, string[]> {
  const groups = new Map<string, FirstDelivery[]>();
  for (const delivery of deliveries) {
    if (redriven.has(delivery.key)) continue;
    const list = groups.get(delivery.group) ?? [];
    list.push(delivery);
    groups.set(delivery.group, list);
  }
  return new Map([...groups].map(([group, list]) => [group, list.sort((a, b) => (a.sequence < b.sequence ? -1 : a.sequence > b.sequence ? 1 : 0)).map((entry) => entry.key)]));
}
