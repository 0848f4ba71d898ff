import type { SqsFaults } from '../sqs/index.js';
import type { CrashPoint } from './crashing-handler.js';

/** How often each fault strikes. */
export interface FaultRates {
  /** Share of invocations whose process dies, at a random commit point of the batch. */
  readonly crashRate: number;
  /** Where the crashes happen: one of these at random. */
  readonly crashes: readonly CrashPoint['when'][];
  /** Share of messages SQS hands to two pollers at once, on their first receive. */
  readonly deliverTwiceRate: number;
  /** Share of SendMessageBatch answers lost, and, separately, of entries SQS fails. */
  readonly producerRetryRate: number;
}

/** The faults of a run, ready to hand to the SQS emulator and to `crashingHandler`. */
export interface FaultPlan {
  readonly sqsFaults: SqsFaults;
  /** Where an invocation of a batch of `records` dies, or undefined. */
  readonly crashAt: (records: number) => CrashPoint | undefined;
  /** The producer's sends that had to be repeated, counted as the emulator injects them. */
  readonly producerRetries: { readonly lostAnswers: number; readonly failedEntries: number };
}

/**
 * Turns fault rates into the hooks that inject them, every choice drawn from `random` (seeded, so a
 * run can be repeated). Messages are handed out twice only from `queueName`, not from its DLQ.
 *
 * @example
 * ```ts
 * const plan = faultPlan({ crashRate: 0.1, crashes: ['after-commit'], deliverTwiceRate: 0.02, producerRetryRate: 0.05 }, 'orders.fifo', seededRandom(1));
 * const sqs = await startSqs({ faults: plan.sqsFaults });
 * ```
 */
export function faultPlan(rates: FaultRates, queueName: string, random: () => number): FaultPlan {
  const producerRetries = { lostAnswers: 0, failedEntries: 0 };
  return {
    producerRetries,
    sqsFaults: {
      deliverTwice: (message) => message.queueName === queueName && message.receiveCount === 1 && random() < rates.deliverTwiceRate,
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
      if (records === 0 || random() >= rates.crashRate) return undefined;
      const when = rates.crashes[Math.floor(random() * rates.crashes.length)]!;
      return { when, at: 1 + Math.floor(random() * records) };
    },
  };
}
