import type { SQSRecord } from 'aws-lambda';
import type { SqsFaults } from '../local/sqs/index.js';
import type { CrashPoint, SendCrashPoint } from './crashing-handler.js';
import { faultPlan } from './fault-plan.js';
import { invocationLapses, type InvocationLapses, type LapseCounts } from './lapsing-invocations.js';

/** How often each fault of the second hop strikes. */
export interface OutboxFaultRates {
  /** Share of the notice worker's invocations that die, at a random commit point (the first hop's rate). */
  readonly crashRate: number;
  readonly crashes: readonly CrashPoint['when'][];
  readonly maxReceiveCount: number;
  /** Share of notice messages handed to two pollers at once (the first hop's rate). */
  readonly deliverTwiceRate: number;
  /** Share of the order worker's invocations that send whose process dies in the send: before it, or after it and before the mark. */
  readonly sendCrashRate: number;
  /** Share of the outbox's SendMessageBatch answers lost (applied, answered 500), and, separately, of entries SQS fails. */
  readonly sendFaultRate: number;
  /** Relay runs that die in a send, before it or after it and before the mark. */
  readonly relayCrashes: number;
  /** Share of the relay schedule's firings that start two relays at once. */
  readonly relayTwiceRate: number;
  /** Share of the order worker's invocations whose visibility timeout runs out mid-batch: a second invocation writes their FIFO groups beside them. */
  readonly lapseRate: number;
  /** The longest such an invocation stalls waiting for the second. */
  readonly lapseMaxStallMs: number;
}

/** How often each fault of the second hop fired, counted as it is injected. */
export interface OutboxFaultCounts {
  readonly sendCrashes: { readonly beforeSend: number; readonly afterSend: number };
  readonly lostSendAnswers: number;
  readonly failedSendEntries: number;
  /** Order worker invocations that stalled past their visibility timeout, and those a second invocation ran beside. */
  readonly lapses: LapseCounts;
}

/** The second hop's faults, ready for the emulator, the notice worker, the order worker's outbox and the relays. */
export interface OutboxFaultPlan {
  /** The notice queue's faults (for `faultsByQueue`). */
  readonly sqsFaults: SqsFaults;
  /** Where the notice worker's invocation of a batch dies, or undefined. */
  readonly noticeCrashAt: (records: readonly SQSRecord[]) => CrashPoint | undefined;
  /** Where an order worker's invocation dies in its send, drawn once per invocation that sends. */
  readonly sendCrashAt: () => SendCrashPoint | undefined;
  /** Counts a send crash of the order worker as it happens. */
  readonly onSendCrash: (point: SendCrashPoint) => void;
  /** Where a relay run dies in its send, while crashes are left to give. */
  readonly relayCrashAt: () => SendCrashPoint | undefined;
  /** Whether a firing of the relay schedule starts two runs. */
  readonly relayTwice: () => boolean;
  /** The order worker's invocations whose visibility timeout runs out mid-batch. */
  readonly lapses: InvocationLapses;
  /** How often each fault has fired so far. */
  counts(): OutboxFaultCounts;
}

const SEND_CRASHES: readonly SendCrashPoint['when'][] = ['before-send', 'after-send'];

/**
 * The faults of the second hop, every choice drawn from `random`: on the notice queue, copies to two
 * pollers and the notice worker's crashes (the first hop's rates, `faultPlan`) and the outbox's lost
 * answers and failed entries; the order worker dying before or after its send; relay runs dying in
 * theirs (one chance in two per run that sends, until `relayCrashes` are spent); two relays at once;
 * order worker invocations whose visibility timeout runs out mid-batch (`invocationLapses`).
 *
 * @example
 * ```ts
 * const plan = outboxFaultPlan({ ...rates, sendCrashRate: 0.05, sendFaultRate: 0.05, relayCrashes: 3, relayTwiceRate: 0.2, lapseRate: 0.05, lapseMaxStallMs: 2500 }, 'shipment-notices.fifo', seededRandom(2));
 * ```
 */
export function outboxFaultPlan(rates: OutboxFaultRates, noticeQueueName: string, random: () => number): OutboxFaultPlan {
  // The outbox sends to the notice queue as the producer sends to the first: the same lost answers and failed entries.
  const notices = faultPlan({ ...rates, producerRetryRate: rates.sendFaultRate }, noticeQueueName, random);
  const sendCrashes = { beforeSend: 0, afterSend: 0 };
  let relayCrashesLeft = rates.relayCrashes;
  const lapses = invocationLapses({ rate: rates.lapseRate, maxStallMs: rates.lapseMaxStallMs, maxReceiveCount: rates.maxReceiveCount }, random);
  const anySendCrash = (): SendCrashPoint => ({ when: SEND_CRASHES[Math.floor(random() * SEND_CRASHES.length)]! });
  return {
    counts: () => ({
      sendCrashes: { ...sendCrashes },
      lostSendAnswers: notices.producerRetries.lostAnswers,
      failedSendEntries: notices.producerRetries.failedEntries,
      lapses: lapses.counts(),
    }),
    sqsFaults: notices.sqsFaults,
    noticeCrashAt: notices.crashAt,
    sendCrashAt: () => (random() < rates.sendCrashRate ? anySendCrash() : undefined),
    onSendCrash: (point) => {
      if (point.when === 'before-send') sendCrashes.beforeSend += 1;
      else sendCrashes.afterSend += 1;
    },
    relayCrashAt: () => {
      if (relayCrashesLeft === 0 || random() >= 0.5) return undefined;
      relayCrashesLeft -= 1;
      return anySendCrash();
    },
    relayTwice: () => random() < rates.relayTwiceRate,
    lapses,
  };
}
