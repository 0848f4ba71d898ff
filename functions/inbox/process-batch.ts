import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { DeadlineError, FifoSkipError } from './errors.js';
import { laneItems, runLanes } from './lanes.js';
import { defaultKey, keyOf } from './message-key.js';
import { observe } from './observe.js';
import { resolveOptions, type InboxOptions, type ResolvedOptions } from './options.js';
import { isRedelivered, type Outcome } from './outcome.js';
import { payloadHash } from './payload-hash.js';
import { processRecord, retryPolicy, type PreparedRecord, type RecordResult } from './process-record.js';
import { messageGroupOf, sqsRecords } from './sqs-event.js';

function laneOf(prepared: PreparedRecord): string {
  if (prepared.groupId !== undefined) return `group:${prepared.groupId}`;
  return prepared.key.ok ? `key:${prepared.key.key}` : `message:${prepared.record.messageId}`;
}

/**
 * `processBatch` with options already resolved, for the middleware that resolves them once.
 *
 * @example
 * ```ts
 * const resolved = resolveOptions(options);
 * export const handler = (event: SQSEvent, context: Context) => runBatch(event, context, resolved);
 * ```
 */
export async function runBatch<T>(event: SQSEvent, context: Context, options: ResolvedOptions<T>): Promise<SQSBatchResponse> {
  const records = sqsRecords(event);
  const remainingMs = () => (typeof context?.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : Number.POSITIVE_INFINITY);
  const retry = retryPolicy(options as ResolvedOptions<unknown>, remainingMs);
  const keyFn = options.key ?? defaultKey;
  const prepared: PreparedRecord[] = records.map((record) => ({
    record,
    groupId: messageGroupOf(record),
    key: keyOf(record, keyFn),
    hash: payloadHash(record.body),
  }));
  const outcomes = new Map<PreparedRecord, Outcome>();
  let fifoBatchFailed = false;

  await runLanes(laneItems(prepared, laneOf), options.concurrency, async (lane) => {
    let laneFailed = false;
    for (const item of lane.items) {
      const started = Date.now();
      const fifo = item.groupId !== undefined;
      let result: RecordResult;
      if (fifo && laneFailed) {
        result = { kind: 'skipped', error: new FifoSkipError('group') };
      } else if (fifo && options.fifoFailure === 'batch' && fifoBatchFailed) {
        result = { kind: 'skipped', error: new FifoSkipError('batch') };
      } else if (remainingMs() < options.deadlineMarginMs) {
        result = { kind: 'skipped', error: new DeadlineError(remainingMs(), options.deadlineMarginMs) };
      } else {
        result = await processRecord(item, options, retry);
      }
      if (fifo && isRedelivered(result.kind)) {
        laneFailed = true;
        fifoBatchFailed = true;
      }
      const outcome: Outcome = {
        kind: result.kind,
        messageId: item.record.messageId,
        key: item.key.ok ? item.key.key : undefined,
        groupId: item.groupId,
        error: result.error,
        durationMs: Date.now() - started,
      };
      outcomes.set(item, outcome);
      observe(outcome, options);
    }
  });

  return {
    batchItemFailures: prepared
      .filter((item) => isRedelivered(outcomes.get(item)?.kind ?? 'failed'))
      .map((item) => ({ itemIdentifier: item.record.messageId })),
  };
}

/**
 * Processes an SQS batch through the inbox: each record is claimed and applied in one transaction
 * (or one guarded statement), and the response lists only the records whose effect did not commit,
 * so SQS redelivers those alone. Attach it with `reportBatchItemFailures` on the event source.
 *
 * @example
 * ```ts
 * import type { Context, SQSEvent } from 'aws-lambda';
 * import { dataApiDatabaseFromEnv, processBatch, sql } from './inbox/index.js';
 *
 * const db = dataApiDatabaseFromEnv();
 * export const handler = (event: SQSEvent, context: Context) =>
 *   processBatch<{ orderId: string }>(event, context, {
 *     consumer: 'ship-orders',
 *     db,
 *     statement: (order) => sql`UPDATE orders SET status = 'shipped', version = version + 1 WHERE order_id = ${sql.uuid(order.orderId)}`,
 *   });
 * ```
 */
export async function processBatch<T>(event: SQSEvent, context: Context, options: InboxOptions<T>): Promise<SQSBatchResponse> {
  return runBatch(event, context, resolveOptions(options));
}
