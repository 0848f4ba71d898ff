import type { Context } from 'aws-lambda';
import type { Database } from '../../functions/inbox/index.js';
import { dyingDatabase, InjectedCrashError, type CrashPoint, type OpenTransactionFate } from '../demo/crashing-handler.js';
import type { KafkaEvent } from './kafka-event.js';
import type { KafkaHandler } from './kafka-handler.js';

/** Options of `crashingKafkaHandler`. */
export interface CrashingKafkaHandlerOptions {
  /** The database every invocation shares. */
  readonly db: Database;
  /** The worker's handler on a database: each invocation gets its own dying one. */
  readonly handler: (db: Database) => KafkaHandler;
  /** Decides, for an event, where its invocation dies, or not at all. */
  readonly plan: (event: KafkaEvent) => CrashPoint | undefined;
  /**
   * What becomes of the transactions a dead invocation had open; `abandoned` for a worker on the Data API.
   * @default 'rolled-back'
   */
  readonly openTransactions?: OpenTransactionFate;
  /**
   * Told about each crash that happened.
   * @default none
   */
  readonly onCrash?: (point: CrashPoint) => void;
}

/**
 * The Kafka side of `crashingHandler`: a Lambda handler whose invocations die where `plan` says,
 * at one of the database commit points of the worker (see `dyingDatabase`). The handler then
 * throws `InjectedCrashError` instead of answering, so the Kafka event source retries the whole
 * batch from its first offsets and commits nothing of it, as Lambda does when a function's process
 * dies. A plan whose commit point the batch never reaches does not crash.
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
  return async (event, context) => {
    const point = options.plan(event);
    const dying = dyingDatabase(options.db, point, options.openTransactions);
    try {
      return await Promise.race([Promise.resolve(options.handler(dying.db)(event, context)), dying.death]);
    } catch (error) {
      if (error instanceof InjectedCrashError) options.onCrash?.(point!);
      throw error;
    }
  };
}
