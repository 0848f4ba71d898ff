import type { SQSRecord } from 'aws-lambda';
import type { Database } from '../functions/inbox/index.js';

/** How often an invocation's visibility timeout runs out mid-batch. */
export interface LapseSettings {
  /** Share of the invocations of two records or more that stall after their first commit point. */
  readonly rate: number;
  /** The longest a stalled invocation waits for a second one to receive its messages: less than its function timeout less its deadline margin. */
  readonly maxStallMs: number;
  /** A batch holding a message on its last receive or the one before never stalls: the second receive must not dead-letter it. */
  readonly maxReceiveCount: number;
}

/** How often invocations stalled, and how often a second invocation ran their messages beside them. */
export interface LapseCounts {
  stalled: number;
  overlapped: number;
}

/** The lapses of a worker's invocations, drawn per invocation. */
export interface InvocationLapses {
  /** One invocation's database: it stalls before its second commit point when the invocation is drawn to lapse. */
  invocation(db: Database, records: readonly SQSRecord[]): Database;
  counts(): LapseCounts;
}

/** A stalled invocation: the messages it holds, and its way back. */
interface Stall {
  readonly ids: ReadonlySet<string>;
  readonly resumed: Promise<void>;
  resume(overlapped: boolean): void;
}

/** `db`, calling `beforeEach` before each commit point (a statement, or a transaction) starts. */
function before(db: Database, beforeEach: () => Promise<void>): Database {
  return {
    query: async (statement) => { await beforeEach(); return db.query(statement); },
    transaction: async (work) => { await beforeEach(); return db.transaction(work); },
    close: () => db.close(),
  };
}

/**
 * A visibility timeout running out mid-batch, as it does in Lambda when an invocation stalls (a
 * slow call, a pause): a drawn invocation stops before its second commit point and so holds its
 * messages past the visibility timeout; SQS hands them (and their FIFO groups) to a second
 * invocation; the first goes on once the second has begun its second commit point, so the two run
 * the same groups side by side, each writing what it claims first (or after `maxStallMs`, counted
 * as stalled only, when no poller took them in time). One invocation stalls at a time.
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

  const stall = (ids: ReadonlySet<string>): Stall => {
    let resolve = () => {};
    const resumed = new Promise<void>((done) => { resolve = done; });
    const timer = setTimeout(() => made.resume(false), settings.maxStallMs);
    const made: Stall = {
      ids,
      resumed,
      resume(overlapped) {
        if (stalled !== made) return;
        stalled = undefined;
        clearTimeout(timer);
        if (overlapped) counts.overlapped += 1;
        resolve();
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
      const lapses = records.length >= 2 && beside === undefined
        && records.every((record) => Number(record.attributes.ApproximateReceiveCount) < settings.maxReceiveCount - 1)
        && random() < settings.rate;
      let commitPoints = 0;
      let mine: Stall | undefined;
      return before(db, async () => {
        commitPoints += 1;
        if (commitPoints === 2) beside?.resume(true);
        if (!lapses || commitPoints < 2) return;
        if (mine === undefined && commitPoints === 2 && stalled === undefined) mine = stall(ids);
        await mine?.resumed;
      });
    },
  };
}
