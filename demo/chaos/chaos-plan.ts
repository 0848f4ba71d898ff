import { withDefaults } from '../../functions/inbox/internal.js';
import { LocalConfigError } from '../../local/internal.js';
import { OUTBOX_RUN_DEFAULTS } from '../outbox-run-options.js';
import { HOP_LAPSE_RATE } from './hop-lane.js';
import { seededRandom } from '../seeded-random.js';
import { settingChecks } from '../setting-checks.js';

/** Options of a chaos run (`npm run chaos`). */
export interface ChaosOptions {
  /**
   * Messages in all, split over the three lanes (SQS FIFO, SQS standard, Kafka).
   * @default 10000
   */
  readonly messages?: number;
  /**
   * Seed of the workload, of the fault plan and of every fault decision: the same seed gives the same plan.
   * @default 1
   */
  readonly seed?: number;
  /**
   * How the workers reach the database: `dataApiDatabase` through the emulator, or `pgDatabase`.
   * @default 'data-api'
   */
  readonly driver?: 'data-api' | 'pg';
  /**
   * Seconds over which the producers send the workload, at an even pace; the timed faults fall inside.
   * @default messages / 30, at least 20
   */
  readonly sendSeconds?: number;
  /**
   * How long each Aurora pause answers DatabaseResumingException, in seconds (there are two).
   * @default 30
   */
  readonly pauseSeconds?: number;
  /**
   * Inbox retention of the cleanup that runs during the run, in seconds: at least the queue's
   * message retention plus the DLQ's (the construct's rule). The run gives the queues and their
   * DLQs half of it each (SQS keeps a message 60 s at least), so the rule holds with nothing to spare.
   * Half of it must outlast the longest wait of a message in a queue behind the pauses, or SQS
   * drops it: a message lost by the queue, which the check counts.
   * @default 300
   */
  readonly retentionSeconds?: number;
  /**
   * How often the cleanup runs, in seconds.
   * @default 5
   */
  readonly cleanupEverySeconds?: number;
  /**
   * Share of invocations that die at a commit point (before or after the commit).
   * @default 0.08
   */
  readonly crashRate?: number;
  /**
   * Share of messages (of Kafka batches) handed to two consumers at once.
   * @default 0.02 (Kafka batches 0.1)
   */
  readonly deliverTwiceRate?: number;
  /**
   * Share of producer batches whose answer is lost, of entries SQS fails, of Kafka acks lost, and of
   * Kafka batch answers lost.
   * @default 0.03
   */
  readonly producerRetryRate?: number;
  /**
   * Poison messages per lane.
   * @default 10
   */
  readonly poison?: number;
  /**
   * Orders per lane locked by a stuck session until the end (they reach the DLQ, then are redriven).
   * @default 2
   */
  readonly stuck?: number;
  /**
   * Orders per SQS lane whose deletes are lost until the redrive.
   * @default 3
   */
  readonly lostDeletes?: number;
  /**
   * The outbox's second hop on the FIFO lane: the ship-order worker's outbox sends each shipment to
   * `shipment-notices.fifo`, read by the shipment-notice worker behind its own inbox, a relay
   * schedule sending what invocations left, under the outbox run's send and relay faults.
   * @default true
   */
  readonly outbox?: boolean;
  /**
   * How long the queues may take to drain, in seconds, before the run fails.
   * @default 600
   */
  readonly drainTimeoutSeconds?: number;
}

/** Settings of a run, every option given or defaulted. */
export type ChaosSettings = Required<ChaosOptions>;

/** The kinds of faults placed on the timeline. */
export type TimedFaultKind = 'postgres-restart' | 'aurora-pause' | 'data-api-restart';

/** A fault at a time of the run. */
export interface TimedFault {
  /** Names the fault in the report and the HTML timeline: `postgres-restart-1`. */
  readonly id: string;
  readonly kind: TimedFaultKind;
  /** Milliseconds after the producers start. */
  readonly atMs: number;
  /** How long it lasts: the database down, the cluster paused, the emulator gone. */
  readonly durationMs: number;
}

/** The whole fault plan of a run: what happens when, and the rates of the faults drawn per event. */
export interface ChaosPlan {
  readonly settings: ChaosSettings;
  /** By time. */
  readonly timed: readonly TimedFault[];
  /** Messages of each lane: FIFO, standard, Kafka. */
  readonly lanes: { readonly fifo: number; readonly standard: number; readonly kafka: number };
  /** Seconds of message retention of the queues and of their DLQs: their sum is the inbox retention. */
  readonly queueRetentionSeconds: number;
  readonly deadLetterRetentionSeconds: number;
}

/** The defaults of a chaos run, in one place; `npm run chaos -- --help` shows them. */
export const CHAOS_DEFAULTS = {
  messages: 10_000,
  seed: 1,
  driver: 'data-api',
  pauseSeconds: 30,
  retentionSeconds: 300,
  cleanupEverySeconds: 5,
  crashRate: 0.08,
  deliverTwiceRate: 0.02,
  producerRetryRate: 0.03,
  poison: 10,
  stuck: 2,
  lostDeletes: 3,
  outbox: true,
  drainTimeoutSeconds: 600,
} as const;

// SQS keeps a message 60 s at least: the queues and the DLQs get half the retention each.
const LEAST_MESSAGE_RETENTION_SECONDS = 60;

function checked(options: ChaosOptions): ChaosSettings {
  const messages = options.messages ?? CHAOS_DEFAULTS.messages;
  const settings = withDefaults({ ...CHAOS_DEFAULTS, sendSeconds: Math.max(20, Math.round(messages / 30)) }, options) as ChaosSettings;
  const { whole, share, oneOf } = settingChecks(settings);
  whole('messages', 60, 1_000_000);
  whole('seed', 0, 2 ** 32 - 1);
  whole('sendSeconds', 5, 3600);
  whole('pauseSeconds', 1, 300);
  whole('retentionSeconds', 2 * LEAST_MESSAGE_RETENTION_SECONDS, 1_209_600);
  whole('cleanupEverySeconds', 1, 3600);
  whole('poison', 0, 1000);
  whole('stuck', 0, 100);
  whole('lostDeletes', 0, 100);
  whole('drainTimeoutSeconds', 10, 7200);
  share('crashRate');
  share('deliverTwiceRate');
  share('producerRetryRate');
  oneOf('driver', ['data-api', 'pg']);
  if (typeof settings.outbox !== 'boolean') throw new LocalConfigError(`outbox must be true or false, but ${String(settings.outbox)} was given.`);
  if (settings.stuck + settings.lostDeletes + settings.poison > messages / 6) {
    throw new LocalConfigError(`stuck, lostDeletes and poison per lane must leave most of a lane's ${Math.floor(messages / 3)} messages ordinary, but ${settings.stuck + settings.lostDeletes + settings.poison} were asked.`);
  }
  return settings;
}

/**
 * The fault plan of a chaos run, drawn from its seed alone: two PostgreSQL restarts (down 1 to 3
 * s), two Aurora pauses of `pauseSeconds`, one restart of the Data API emulator (down 0.5 to 2 s),
 * spread over the producers' window so no two overlap; the per-event faults (crashes, twins, lost
 * deletes and answers, producer retries, poison, stuck sessions) come at the plan's rates. The same
 * options give the same plan.
 *
 * @example
 * ```ts
 * const plan = chaosPlan({ messages: 1500, seed: 7 });
 * for (const line of planLines(plan)) console.log(line);
 * ```
 */
export function chaosPlan(options: ChaosOptions = {}): ChaosPlan {
  const settings = checked(options);
  const random = seededRandom(settings.seed ^ 0x9e3779b9);
  const between = (low: number, high: number) => Math.round(low + random() * (high - low));
  const windowMs = settings.sendSeconds * 1000;
  const kinds: { kind: TimedFaultKind; durationMs: number }[] = [
    { kind: 'postgres-restart', durationMs: between(1000, 3000) },
    { kind: 'postgres-restart', durationMs: between(1000, 3000) },
    { kind: 'aurora-pause', durationMs: settings.pauseSeconds * 1000 },
    { kind: 'aurora-pause', durationMs: settings.pauseSeconds * 1000 },
    { kind: 'data-api-restart', durationMs: between(500, 2000) },
  ];
  // A seeded shuffle, then the faults one after another with seeded gaps that fill the window.
  for (let index = kinds.length - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1));
    [kinds[index], kinds[other]] = [kinds[other]!, kinds[index]!];
  }
  const busyMs = kinds.reduce((sum, fault) => sum + fault.durationMs, 0);
  const gaps = kinds.map(() => 0.5 + random());
  const spareMs = Math.max(kinds.length * 1000, windowMs - busyMs);
  const gapScale = spareMs / gaps.reduce((sum, gap) => sum + gap, 0);
  const counts: Record<string, number> = {};
  let atMs = 0;
  const timed = kinds.map((fault, index) => {
    atMs += Math.round(gaps[index]! * gapScale * (index === 0 ? 0.5 : 1));
    counts[fault.kind] = (counts[fault.kind] ?? 0) + 1;
    const placed = { id: `${fault.kind}-${counts[fault.kind]}`, kind: fault.kind, atMs, durationMs: fault.durationMs };
    atMs += fault.durationMs;
    return placed;
  });
  const third = Math.floor(settings.messages / 3);
  return {
    settings,
    timed,
    lanes: { fifo: settings.messages - 2 * third, standard: third, kafka: third },
    queueRetentionSeconds: Math.floor(settings.retentionSeconds / 2),
    deadLetterRetentionSeconds: Math.floor(settings.retentionSeconds / 2),
  };
}

const seconds = (ms: number) => (ms / 1000).toFixed(1);

/**
 * The plan as `npm run chaos` prints it before the run: every timed fault with its time, then the rates.
 *
 * @example
 * ```ts
 * planLines(chaosPlan({ seed: 3 })) // ['fault plan (seed 3): ...', '  t=  12.3 s  postgres-restart-1 for 2.1 s', ...]
 * ```
 */
export function planLines(plan: ChaosPlan): string[] {
  const { settings } = plan;
  return [
    `fault plan (seed ${settings.seed}): ${plan.lanes.fifo} messages on SQS FIFO, ${plan.lanes.standard} on SQS standard, ${plan.lanes.kafka} on Kafka, sent over ${settings.sendSeconds} s, ${settings.driver} driver`,
    ...plan.timed.map((fault) => `  t=${seconds(fault.atMs).padStart(6)} s  ${fault.id.padEnd(20)} for ${seconds(fault.durationMs)} s`),
    `  every ${settings.cleanupEverySeconds} s  inbox cleanup, retention ${settings.retentionSeconds} s (queues keep messages ${plan.queueRetentionSeconds} s, DLQs ${plan.deadLetterRetentionSeconds} s)`,
    '  at the end   the stuck sessions end, deletes work again, the SQS DLQs are redriven',
    `  per event    crashes ${settings.crashRate} of invocations (before or after a commit), twins ${settings.deliverTwiceRate} of messages, `
      + `lost producer answers, failed entries, lost Kafka acks and lost batch answers ${settings.producerRetryRate} each`,
    `  per lane     ${settings.poison} poison, ${settings.stuck} stuck orders, ${settings.lostDeletes} orders whose deletes are lost (SQS)`,
    ...(settings.outbox ? [`  second hop   sqs-fifo's outbox to shipment-notices.fifo: send crashes ${OUTBOX_RUN_DEFAULTS.sendCrashRate} of sending invocations (after commit or after send), `
      + `lost send answers and failed entries ${OUTBOX_RUN_DEFAULTS.sendFaultRate} each, ${OUTBOX_RUN_DEFAULTS.relayCrashes} relay crashes, two relays at once ${OUTBOX_RUN_DEFAULTS.relayTwiceRate} of firings, `
      + `visibility timeouts lapsing mid-batch ${HOP_LAPSE_RATE} of sqs-fifo's invocations (a second invocation writes their FIFO group by turns)`] : []),
  ];
}
