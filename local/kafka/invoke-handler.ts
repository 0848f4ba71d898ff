import type { Context } from 'aws-lambda';
import type { Invocation } from '../event-source/index.js';
import type { KafkaEvent } from './kafka-event.js';

/**
 * A Lambda handler for Kafka events: `processKafkaBatch` behind a wrapper, or any async function.
 * Its answer is read as Lambda reads it, as JSON: `kafkaBatchResult` says how.
 */
export type KafkaHandler = (event: KafkaEvent, context: Context) => Promise<unknown> | unknown;

/**
 * Runs the handler as Lambda runs an invocation: its result, its error, or the timeout, whichever
 * comes first. A handler still running at the timeout is left to finish on its own, as the work a
 * killed function had already sent keeps going where it was sent.
 *
 * @example
 * ```ts
 * await invokeHandler(async () => { throw new Error('down'); }, event, context, 1000) // { kind: 'threw', error }
 * ```
 */
export async function invokeHandler(handler: KafkaHandler, event: KafkaEvent, context: Context, timeoutMs: number): Promise<Invocation> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Invocation>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'timed-out' }), timeoutMs);
  });
  const run = (async (): Promise<Invocation> => {
    try {
      return { kind: 'returned', value: await handler(event, context) };
    } catch (error) {
      return { kind: 'threw', error };
    }
  })();
  try {
    return await Promise.race([run, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
