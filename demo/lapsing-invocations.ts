import type { SQSRecord } from 'aws-lambda';
import type { Database } from '../functions/inbox/index.js';
import { sleep } from '../functions/inbox/internal.js';

/** How often an invocation's visibility timeout runs out mid-batch. */
export interface LapseSettings {
  /** Share of the invocations holding three messages of one FIFO group or more that stall after the group's first. */
  readonly rate: number;
  /** The longest a stalled invocation waits for a second one to take its messages: less than its function timeout less its deadline margin. */
  readonly maxStallMs: number;
  /** A batch holding a message on its last receive or the one before never stalls: the second receive must not dead-letter it. */
  readonly maxReceiveCount: number;
}

/** How often invocations stalled, and how often a second invocation took their messages while they ran. */
export interface LapseCounts {
  stalled: number;
  overlapped: number;
}

/** The lapses of a worker's invocations, drawn per invocation. */
export interface InvocationLapses {
  /** One invocation's database: it stalls in its batch when the invocation is drawn to lapse, or takes turns with one that did. */
  invocation(db: Database, records: readonly SQSRecord[]): Database;
  counts(): LapseCounts;
}

/** A stalled invocation: the messages it holds, the three first keys of its group, its way back. */
interface Stall {
  readonly ids: ReadonlySet<string>;
  readonly keys: readonly [string, string, string];
  readonly resumed: Promise<void>;
  resume(): void;
  /** Counts, once, that a second invocation took the stalled one's messages. */
  overlap(): void;
  /** Resolves once the stalled invocation has written its group's third message. */
  readonly thirdDone: Promise<void>;
  third(): void;
}

/** A record's idempotency key, as the worker claims it. */
const keyOf = (record: SQSRecord): string => record.messageAttributes?.['idempotency-key']?.stringValue ?? record.attributes.MessageDeduplicationId ?? record.messageId;

/** A promise and its resolver. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((done) => { resolve = done; });
  return { promise, resolve };
}

/** The keys of the first FIFO group that has three records in the batch, in the batch's order. */
function threeOfAGroup(records: readonly SQSRecord[]): [string, string, string] | undefined {
  const byGroup = new Map<string, string[]>();
  for (const record of records) {
    const group = record.attributes.MessageGroupId;
    if (group === undefined) continue;
    const keys = [...(byGroup.get(group) ?? []), keyOf(record)];
    if (keys.length === 3) return keys as [string, string, string];
    byGroup.set(group, keys);
  }
  return undefined;
}

/** `db`, calling `around` with each statement's bound values and the statement's run. */
function around(db: Database, hook: (values: readonly unknown[], run: () => Promise<void>) => Promise<void>): Database {
  return {
    async query(statement) {
      let result: Awaited<ReturnType<typeof db.query>> | undefined;
      await hook(statement.values, async () => { result = await db.query(statement); });
      return result as never;
    },
    transaction: (work) => db.transaction(work),
    close: () => db.close(),
  };
}

/**
 * A visibility timeout running out mid-batch, as it does in Lambda when an invocation stalls (a
 * slow call, a pause). A drawn invocation writes the first of three messages of a FIFO group in its
 * batch, then stalls past the visibility timeout, so SQS hands its messages (and the group) to a
 * second invocation while the first still runs. The second writes the group's second message;
 * before its third it lets the first go on and pauses (calls of two invocations interleave so), and
 * the first writes the third: one group written by two invocations by turns, A, B, A. A stall ends
 * after `maxStallMs` at the latest (a second invocation that took only part of the messages never
 * lets it go; none at all counts as stalled only). One invocation stalls at a time.
 *
 * @example
 * ```ts
 * const lapses = invocationLapses({ rate: 0.05, maxStallMs: 2500, maxReceiveCount: 5 }, seededRandom(3));
 * crashingHandler({ ..., worker: (db, invocation, records) => shipOrderOptions(lapses.invocation(db, records)) });
 * ```
 */
export function invocationLapses(settings: LapseSettings, random: () => number): InvocationLapses {
  const counts: LapseCounts = { stalled: 0, overlapped: 0 };
  let stalled: Stall | undefined;

  const stall = (ids: ReadonlySet<string>, keys: [string, string, string]): Stall => {
    const back = signal();
    const third = signal();
    const timer = setTimeout(() => made.resume(), settings.maxStallMs);
    let overlapped = false;
    const made: Stall = {
      ids, keys, resumed: back.promise, thirdDone: third.promise, third: third.resolve,
      resume() {
        if (stalled !== made) return;
        stalled = undefined;
        clearTimeout(timer);
        back.resolve();
      },
      overlap() {
        if (!overlapped) counts.overlapped += 1;
        overlapped = true;
      },
    };
    counts.stalled += 1;
    stalled = made;
    return made;
  };

  return {
    counts: () => ({ ...counts }),
    invocation(db, records) {
      const ids = new Set(records.map((record) => record.messageId));
      const beside = stalled !== undefined && [...ids].some((id) => stalled!.ids.has(id)) ? stalled : undefined;
      if (beside !== undefined) {
        beside.overlap();
        return around(db, async (values, run) => {
          if (values.includes(beside.keys[2])) {
            beside.resume();
            await Promise.race([beside.thirdDone, sleep(settings.maxStallMs)]);
          }
          await run();
        });
      }
      const keys = threeOfAGroup(records);
      const lapses = keys !== undefined
        && records.every((record) => Number(record.attributes.ApproximateReceiveCount) < settings.maxReceiveCount - 1)
        && random() < settings.rate;
      if (!lapses) return db;
      let mine: Stall | undefined;
      return around(db, async (values, run) => {
        if (values.includes(keys[1]) && mine === undefined && stalled === undefined) mine = stall(ids, keys);
        if (mine !== undefined) await mine.resumed;
        await run();
        if (values.includes(keys[2])) mine?.third();
      });
    },
  };
}
