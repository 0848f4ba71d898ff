import type { Context } from 'aws-lambda';
import type { Database } from '../functions/inbox/index.js';
import { crashingInvocations, type CrashingInvocationsOptions } from './crashing-handler.js';
import type { KafkaEvent, KafkaHandler } from '../local/kafka/index.js';

/** Options of `crashingKafkaHandler`. */
export interface CrashingKafkaHandlerOptions extends CrashingInvocationsOptions<KafkaEvent> {
  /** The worker's handler on a database: each invocation gets its own dying one. */
  readonly handler: (db: Database) => KafkaHandler;
}

/**
 * The Kafka side of `crashingHandler`: a Lambda handler whose invocations die where `plan` says,
 * at one of the database commit points of the worker (see `dyingDatabase`), or at their timeout.
 * The handler then throws instead of answering, so the Kafka event source retries the whole batch
 * from its first offsets and commits nothing of it, as Lambda does when a function's process dies.
 *
 * @example
 * ```ts
 * const handler = crashingKafkaHandler({
 *   db,
 *   handler: (db) => (event, context) => processKafkaBatch(event, context, workerOptions(db)),
 *   plan: () => (Math.random() < 0.05 ? { when: 'after-commit', at: 1 } : undefined),
 * });
 * startKafkaEventSource({ log, topic: 'orders', handler });
 * ```
 */
export function crashingKafkaHandler(options: CrashingKafkaHandlerOptions): (event: KafkaEvent, context: Context) => Promise<unknown> {
  return crashingInvocations(options, async (db, event, context) => options.handler(db)(event, context));
}
