import type { SQSRecord } from 'aws-lambda';
import type { SqsFaults } from '../local/sqs/index.js';
import type { CrashPoint } from './crashing-handler.js';
import { seededRandom } from './seeded-random.js';

/** How often each fault strikes. */
export interface FaultRates {
  /** Share of invocations whose process dies, at a random commit point of the batch. */
  readonly crashRate: number;
  /**
   * The queue's maxReceiveCount: a batch holding a message on its last receive is never crashed, so
   * crashes alone never send a message to the DLQ (the stuck orders show that path).
   */
  readonly maxReceiveCount: number;
  /** Where the crashes happen: one of these at random. */
  readonly crashes: readonly CrashPoint['when'][];
  /** Share of messages SQS hands to two pollers at once, on their first receive. */
  readonly deliverTwiceRate: number;
  /**
   * Most pollers that hold one message at once (standard queues; FIFO hands out one copy): each
   * copy past the second is drawn at `deliverTwiceRate` again, so with 3 a message arrives 1 to 3 times.
   * @default 2
   */
  readonly maxCopies?: number;
  /** Share of SendMessageBatch answers lost, and, separately, of entries SQS fails. */
  readonly producerRetryRate: number;
}

/** The faults of a run, ready to hand to the SQS emulator and to `crashingHandler`. */
export interface FaultPlan {
  readonly sqsFaults: SqsFaults;
  /** Where the invocation of a batch dies, or undefined. */
  readonly crashAt: (records: readonly SQSRecord[]) => CrashPoint | undefined;
  /** The producer's sends that had to be repeated, counted as the emulator injects them. */
  readonly producerRetries: { readonly lostAnswers: number; readonly failedEntries: number };
}

/**
 * Turns fault rates into the hooks that inject them, every choice drawn from `random` (the crashes
 * from a stream it seeds). A seed fixes the streams, not which message a draw meets: that depends on
 * timing, but the n-th batch handed over meets the same crash draw whatever the timing. Messages are handed out twice
 * only from `queueName`, not from its DLQ.
 *
 * @example
 * ```ts
 * const plan = faultPlan({ crashRate: 0.1, crashes: ['after-commit'], maxReceiveCount: 5, deliverTwiceRate: 0.02, producerRetryRate: 0.05 }, 'orders.fifo', seededRandom(1));
 * const sqs = await startSqs({ faults: plan.sqsFaults });
 * ```
 */
export function faultPlan(rates: FaultRates, queueName: string, random: () => number): FaultPlan {
  const producerRetries = { lostAnswers: 0, failedEntries: 0 };
  // The crashes draw from a stream of their own, so the n-th batch's fate does not depend on how
  // many sends and receives drew before it: a run whose producer finishes first crashes as often.
  const crashRandom = seededRandom(Math.floor(random() * 2 ** 32));
  return {
    producerRetries,
    sqsFaults: {
      // Copies of a message's first receive only, up to maxCopies receivers in all.
      deliverTwice: (message) => message.queueName === queueName && message.receiveCount === message.copies + 1
        && message.copies + 1 < (rates.maxCopies ?? 2) && random() < rates.deliverTwiceRate,
      failSendEntry: () => {
        const fail = random() < rates.producerRetryRate;
        if (fail) producerRetries.failedEntries += 1;
        return fail;
      },
      loseResponse: (call) => {
        const lose = call.operation === 'SendMessageBatch' && random() < rates.producerRetryRate;
        if (lose) producerRetries.lostAnswers += 1;
        return lose;
      },
    },
    crashAt: (records) => {
      if (records.length === 0 || crashRandom() >= rates.crashRate) return undefined;
      if (records.some((record) => Number(record.attributes.ApproximateReceiveCount) >= rates.maxReceiveCount)) return undefined;
      const when = rates.crashes[Math.floor(crashRandom() * rates.crashes.length)]!;
      return { when, at: 1 + Math.floor(crashRandom() * records.length) };
    },
  };
}
