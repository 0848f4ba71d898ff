import type { Context } from 'aws-lambda';
import { resolveOptions, type InboxOptions, type ResolvedOptions } from '../options.js';
import { isRedelivered } from '../outcome.js';
import { runBatch } from '../pipeline/run-batch.js';
import { kafkaPartitionOf, type KafkaBatchResponse, type KafkaEvent, type KafkaRecord } from './kafka-event.js';
import { kafkaSource } from './kafka-source.js';

/**
 * What `processKafkaBatch()` and `kafkaInbox()` take: the options of the SQS side, with
 * `KafkaRecord` as the record `parse`, `key` and the handler's context see; `K` the outbox's target names.
 */
export type KafkaInboxOptions<T, K extends string = string> = InboxOptions<T, KafkaRecord, K>;

/**
 * `processKafkaBatch` with options already resolved, for the middleware that resolves them once.
 *
 * @example
 * ```ts
 * const resolved = resolveOptions(options);
 * export const handler = (event: KafkaEvent, context: Context) => runKafkaBatch(event, context, resolved);
 * ```
 */
export async function runKafkaBatch<T>(event: KafkaEvent, context: Context, options: ResolvedOptions<T, KafkaRecord>): Promise<KafkaBatchResponse> {
  const settled = await runBatch(event, context, options, kafkaSource);
  return {
    batchItemFailures: settled
      .filter(({ outcome }) => isRedelivered(outcome.kind))
      .map(({ record }) => ({ itemIdentifier: { partition: kafkaPartitionOf(record), offset: record.offset } })),
  };
}

/**
 * Processes a batch of Lambda's Amazon MSK or self-managed Kafka event source through the inbox:
 * each record is claimed (by its `idempotency-key` header, else `<topic>:<partition>:<offset>`) and
 * applied in one transaction or one guarded statement; partitions run in parallel, in offset order
 * inside each, and after a failure the rest of its partition is not attempted. The response names
 * every record that did not commit, so Lambda resumes each such partition from its failed offset.
 * Needs the event source mapping in provisioned mode with `ReportBatchItemFailures`.
 *
 * @example
 * ```ts
 * import type { Context } from 'aws-lambda';
 * import { processKafkaBatch, sql } from 'sqs-inbox';
 * import { dataApiDatabaseFromEnv } from 'sqs-inbox/data-api';
 * import type { KafkaEvent } from 'sqs-inbox/kafka';
 *
 * const db = dataApiDatabaseFromEnv();
 * export const handler = (event: KafkaEvent, context: Context) =>
 *   processKafkaBatch<{ orderId: string }>(event, context, {
 *     consumer: 'ship-orders',
 *     db,
 *     statement: (order) => sql`UPDATE orders SET status = 'shipped', version = version + 1 WHERE order_id = ${sql.uuid(order.orderId)}`,
 *   });
 * ```
 */
export async function processKafkaBatch<T, K extends string = string>(event: KafkaEvent, context: Context, options: KafkaInboxOptions<T, K>): Promise<KafkaBatchResponse> {
  return runKafkaBatch(event, context, resolveOptions(options));
}
