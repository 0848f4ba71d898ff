import type { Publisher } from '../functions/inbox/outbox/index.js';
import { InjectedCrashError, type DyingInvocation, type SendCrashPoint } from './crashing-handler.js';

// What a dead process's send waits on instead of answering: its code never runs again.
const NEVER = new Promise<never>(() => undefined);

/** Options of `crashingPublisher`. */
export interface CrashingPublisherOptions {
  /** The invocation (or relay run) whose outbox sends through it: the crash ends it. */
  readonly invocation: DyingInvocation;
  /** Drawn once, at the first send: where this invocation dies, or not at all. */
  readonly crashAt: () => SendCrashPoint | undefined;
  /**
   * Told about the crash when it happens.
   * @default none
   */
  readonly onCrash?: (point: SendCrashPoint) => void;
}

/**
 * A target through which an invocation's outbox dies in its send: `before-send` ends the invocation
 * as its first publish call starts (the rows committed, nothing sent), `after-send` once the target
 * took that call's entries and before they are marked. Either way nothing more leaves it: its later
 * calls never answer and its database calls throw, so its rows stay leased until their lease runs
 * out and the relay sends them (again, after `after-send`: the next inbox must take them once).
 *
 * @example
 * ```ts
 * const targets = { shipmentNotices: crashingPublisher(sqsTarget({ queueUrl, client }), { invocation, crashAt: () => ({ when: 'after-send' }) }) };
 * ```
 */
export function crashingPublisher(inner: Publisher, options: CrashingPublisherOptions): Publisher {
  let point: SendCrashPoint | undefined | null = null;
  let dead = false;
  const die = (crash: SendCrashPoint): Promise<never> => {
    dead = true;
    options.onCrash?.(crash);
    options.invocation.kill(new InjectedCrashError(crash));
    return NEVER;
  };
  return {
    ...inner,
    async publish(entries, publishOptions) {
      if (dead) return NEVER;
      if (point === null) point = options.crashAt();
      if (point?.when === 'before-send') return die(point);
      const answers = await inner.publish(entries, publishOptions);
      if (point?.when === 'after-send') return die(point);
      return answers;
    },
  };
}
