/**
 * Records that must run one after another: a FIFO message group keeps its order, and on a standard
 * queue the records that share an idempotency key run in turn instead of waiting on each other's lock.
 */
export interface Lane<R> {
  readonly id: string;
  readonly items: R[];
}

/**
 * Groups items into lanes by `laneOf`, lanes in the order their first item appears, items in order.
 *
 * @example
 * ```ts
 * laneItems(records, (r) => r.lane ?? `key:${r.key}`)
 * ```
 */
export function laneItems<R>(items: readonly R[], laneOf: (item: R) => string): Lane<R>[] {
  const lanes = new Map<string, Lane<R>>();
  for (const item of items) {
    const id = laneOf(item);
    const lane = lanes.get(id) ?? { id, items: [] };
    lane.items.push(item);
    lanes.set(id, lane);
  }
  return [...lanes.values()];
}

/**
 * Runs `work` on each lane, at most `concurrency` lanes at once; a lane's items are its own business.
 * Every lane runs and settles even when another lane's work throws, so nothing is still running
 * once this settles (a batch must not answer while a statement of it may yet commit); the first
 * error is thrown then.
 *
 * @example
 * ```ts
 * await runLanes(lanes, 10, async (lane) => { for (const item of lane.items) await handle(item); });
 * ```
 */
export async function runLanes<R>(lanes: readonly Lane<R>[], concurrency: number, work: (lane: Lane<R>) => Promise<void>): Promise<void> {
  let next = 0;
  const errors: unknown[] = [];
  const worker = async () => {
    while (next < lanes.length) {
      const lane = lanes[next];
      next += 1;
      try {
        if (lane) await work(lane);
      } catch (error) {
        errors.push(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, lanes.length) }, worker));
  if (errors.length > 0) throw errors[0];
}
