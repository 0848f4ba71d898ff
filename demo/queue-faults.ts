import type { SqsFaults } from '../local/sqs/index.js';

/**
 * One emulator's faults from each queue's own: every hook asks the faults of the queue it is about,
 * so a fault plan drawn for one queue never strikes (nor draws for) another.
 *
 * @example
 * ```ts
 * const sqs = await startSqs({ faults: faultsByQueue({ 'orders.fifo': firstHop.sqsFaults, 'shipment-notices.fifo': outbox.sqsFaults }) });
 * ```
 */
export function faultsByQueue(byQueue: Readonly<Record<string, SqsFaults>>): SqsFaults {
  const of = (queueName: string | undefined): SqsFaults => (queueName === undefined ? {} : byQueue[queueName] ?? {});
  return {
    deliverTwice: (message) => of(message.queueName).deliverTwice?.(message) ?? false,
    failSendEntry: (entry) => of(entry.queueName).failSendEntry?.(entry) ?? false,
    failDeleteEntry: (entry) => of(entry.queueName).failDeleteEntry?.(entry) ?? false,
    loseResponse: (call) => of(call.queueName).loseResponse?.(call) ?? false,
  };
}
