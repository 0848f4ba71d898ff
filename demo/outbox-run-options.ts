import { LocalConfigError } from '../local/internal.js';
import { settingChecks } from './setting-checks.js';

/** The main job's options for its second hop (`npm start -- --outbox`). */
export interface OutboxRunOptions {
  /**
   * Run the second hop: the order worker sends an OrderShipped through its outbox for each order it
   * ships, to a second FIFO queue, which the shipment-notice worker consumes; a scheduled relay
   * sends what the invocations left. Statement mode only (the ship-order worker has the outbox).
   * @default false
   */
  readonly outbox?: boolean;
  /**
   * Share of the order worker's invocations that send whose process dies in the send: right before
   * it (committed, nothing sent) or right after it (sent, not marked), half each.
   * @default 0.05
   */
  readonly sendCrashRate?: number;
  /**
   * Share of the outbox's SendMessageBatch answers lost (SQS applied the call, the answer never
   * came: the SDK sends it again), and, separately, of its entries SQS fails.
   * @default 0.05
   */
  readonly sendFaultRate?: number;
  /**
   * Relay runs that die in a send, before it or after it and before the mark (one chance in two
   * per run that sends, until these are spent).
   * @default 3
   */
  readonly relayCrashes?: number;
  /**
   * Share of the relay schedule's firings that start two relays at once.
   * @default 0.2
   */
  readonly relayTwiceRate?: number;
  /**
   * Share of the order worker's invocations (of two messages or more) whose visibility timeout runs
   * out mid-batch: stalled after their first commit point, their messages and FIFO groups go to a
   * second invocation, and the two then write the same groups side by side.
   * @default 0.05
   */
  readonly lapseRate?: number;
  /**
   * How often the relay schedule fires.
   * @default 500
   */
  readonly relayIntervalMs?: number;
  /**
   * The relay function's timeout: a relay run's lease on the rows it takes lasts as long.
   * @default 4000
   */
  readonly relayTimeoutMs?: number;
  /**
   * How long a row is left to the invocation that wrote it before a relay may send it.
   * @default 1000
   */
  readonly relayGraceMs?: number;
  /**
   * The SQS emulator's FIFO deduplication window (SQS: 5 minutes), scaled down with the run's
   * timeouts: a row sent again after a crash between its send and its mark goes out past it, so
   * the copy reaches the notice worker, whose inbox (not FIFO deduplication) must take it once.
   * @default 2500 with `outbox`, else 300000
   */
  readonly deduplicationWindowMs?: number;
  /**
   * Run the notice worker without its inbox, to see the run fail: every copy writes a notice.
   * @default false
   */
  readonly unguardedNotices?: boolean;
  /**
   * Sabotage: the outbox sends its rows without their trace context, to see the trace check fail.
   * @default false
   */
  readonly dropTraceContext?: boolean;
}

/** The defaults of the second hop, in one place; `npm start` shows them in its help. */
export const OUTBOX_RUN_DEFAULTS = {
  outbox: false,
  sendCrashRate: 0.05,
  sendFaultRate: 0.05,
  relayCrashes: 3,
  relayTwiceRate: 0.2,
  lapseRate: 0.05,
  relayIntervalMs: 500,
  relayTimeoutMs: 4000,
  relayGraceMs: 1000,
  unguardedNotices: false,
  dropTraceContext: false,
} as const;

/**
 * What a run with the outbox scales down like the visibility timeout: the function timeout (a dead
 * invocation's rows, and its FIFO groups, stay leased until its deadline, so 15 s would hold each
 * one back 15 s before a relay may take it) and the deduplication window (see `deduplicationWindowMs`).
 */
export const OUTBOX_SCALED_DEFAULTS = { functionTimeoutMs: 5000, deadlineMarginMs: 1500, deduplicationWindowMs: 2500 } as const;

/**
 * Checks the second hop's settings, each refusal naming the setting; `outbox` needs statement mode.
 *
 * @example
 * ```ts
 * checkOutboxRunSettings({ ...OUTBOX_RUN_DEFAULTS, outbox: true, mode: 'statement' });
 * ```
 */
export function checkOutboxRunSettings(settings: Required<OutboxRunOptions> & { readonly mode: string }): void {
  const { whole, share } = settingChecks(settings);
  for (const name of ['outbox', 'unguardedNotices', 'dropTraceContext'] as const) {
    if (typeof settings[name] !== 'boolean') throw new LocalConfigError(`${name} must be true or false, but ${String(settings[name])} was given.`);
  }
  share('sendCrashRate');
  share('sendFaultRate');
  share('relayTwiceRate');
  share('lapseRate');
  whole('relayCrashes', 0, 1000);
  whole('relayIntervalMs', 10, 60_000);
  whole('relayTimeoutMs', 500, 900_000);
  whole('relayGraceMs', 0, 86_400_000);
  whole('deduplicationWindowMs', 1, 300_000);
  if (settings.outbox && settings.mode !== 'statement') {
    throw new LocalConfigError(`outbox runs the ship-order worker, in statement mode, but mode ${settings.mode} was given.`);
  }
  if (settings.unguardedNotices && !settings.outbox) throw new LocalConfigError('unguardedNotices is a setting of the outbox run: add outbox.');
  if (settings.dropTraceContext && !settings.outbox) throw new LocalConfigError('dropTraceContext is a setting of the outbox run: add outbox.');
}

/**
 * Refuses the second hop on a source it does not run on: `--outbox` is a hop of the SQS main job,
 * so `--source kafka --outbox` would run without it.
 *
 * @example
 * ```ts
 * checkOutboxSource({ source: 'kafka', outbox: true }); // throws LocalConfigError
 * ```
 */
export function checkOutboxSource(settings: { readonly source: string; readonly outbox: boolean }): void {
  if (settings.outbox && settings.source !== 'sqs') {
    throw new LocalConfigError(`outbox is a second hop of the SQS main job, but source ${settings.source} was given: drop outbox or use source sqs.`);
  }
}
