import type { Context } from 'aws-lambda';
import { payloadHash } from '../claim/payload-hash.js';
import { invocationMetrics } from '../metric-log.js';
import { checkDeployedConsumer, type ResolvedOptions } from '../options.js';
import { isRedelivered, type Outcome } from '../outcome.js';
import { outboxBatch } from '../outbox/outbox-batch.js';
import { DeadlineError, isInboxTableMissing, LaneBlockedError, MissingKeyAttributeError, type InboxTableMissingError } from './errors.js';
import { laneItems, runLanes } from './lanes.js';
import { keyOf } from './message-key.js';
import { observe, reportMissingTable } from './observe.js';
import type { PreparedRecord, RecordResult } from './prepared-record.js';
import type { BatchWork } from './batch-work.js';
import { processRecord } from './process-record.js';
import type { RecordSource } from './record-source.js';
import { runStatementBatch } from './statement-batch.js';
import { transientRetry } from '../transient.js';
import { startBatchTrace, type TracedRecord } from '../trace/message-spans.js';
import { loadOtel } from '../trace/otel-api.js';

/** A record of the event and what became of it. */
export interface SettledRecord<R> {
  readonly record: R;
  readonly outcome: Outcome;
}

/** What earlier records of the lane and the batch did. */
interface SkipState {
  readonly laneName: RecordSource<unknown>['laneName'];
  readonly laneFailed: boolean;
  readonly batchFailed: boolean;
  /** The batch met a database without the inbox table: no later record can succeed. */
  readonly tableMissing: InboxTableMissingError | undefined;
}

function remainingTime(context: Context | undefined): () => number {
  return typeof context?.getRemainingTimeInMillis === 'function'
    ? () => context.getRemainingTimeInMillis()
    : () => Number.POSITIVE_INFINITY;
}

function prepare<T, R>(record: R, options: ResolvedOptions<T, R>, source: RecordSource<R>): PreparedRecord<R> {
  const key = keyOf(record, options.key, (r) => source.defaultKey(r));
  return {
    record,
    messageId: source.messageId(record),
    lane: source.orderedLane(record),
    key: options.requireKeyAttribute && key.ok && key.fallback !== undefined ? { ok: false, error: new MissingKeyAttributeError(key.fallback) } : key,
    hash: payloadHash(source.payload(record)),
    rejectKey: source.rejectKey(record),
    keep: () => source.keep(record),
  };
}

// Unordered records that share a key run in turn instead of waiting on each other's row lock.
function laneOf<R>(prepared: PreparedRecord<R>): string {
  if (prepared.lane !== undefined) return `ordered:${prepared.lane}`;
  return prepared.key.ok ? `key:${prepared.key.key}` : `message:${prepared.messageId}`;
}

function skipError<T, R>(item: PreparedRecord<R>, state: SkipState, work: BatchWork<T, R>): Error | undefined {
  const { options } = work;
  if (state.tableMissing) return state.tableMissing;
  if (item.lane !== undefined && state.laneFailed) return new LaneBlockedError(state.laneName);
  if (item.lane !== undefined && options.laneFailure === 'batch' && state.batchFailed) return new LaneBlockedError('batch');
  const remainingMs = work.remainingMs();
  if (remainingMs < options.deadlineMarginMs) return new DeadlineError(remainingMs, options.deadlineMarginMs);
  return undefined;
}

function tracedRecord<R>(item: PreparedRecord<R>, source: RecordSource<R>): TracedRecord {
  return { messageId: item.messageId, destination: source.destination(item.record), key: item.key.ok ? item.key.key : undefined, parent: source.traceContext(item.record) };
}

function outcomeOf<R>(item: PreparedRecord<R>, result: RecordResult, durationMs: number): Outcome {
  return {
    kind: result.kind,
    messageId: item.messageId,
    key: item.key.ok ? item.key.key : undefined,
    ...(item.key.ok && item.key.fallback !== undefined ? { keyFallback: item.key.fallback } : {}),
    lane: item.lane,
    error: result.error,
    durationMs,
  };
}

/**
 * The one pipeline behind every entry point: reads the event through its `source`, then runs each
 * record through the per-message rule, ordered lanes (FIFO groups, Kafka partitions) in order and
 * up to `concurrency` lanes at once, skipping the rest of a lane after a failure, every record once
 * the invocation is short of time, and every record once one found no inbox table (said once for
 * the batch). With an outbox, the rows the batch's messages committed are sent before it resolves
 * (a send that fails leaves its row for the relay and changes no outcome). Resolves to every record
 * with its outcome, in the event's order. A `consumer` other than the one the function is deployed
 * as (INBOX_CONSUMER) fails the invocation before any record; in Lambda without `metrics`, the
 * batch's metrics are written as one EMF line when it settles.
 *
 * @example
 * ```ts
 * const settled = await runBatch(event, context, resolveOptions(options), sqsSource);
 * const failed = settled.filter(({ outcome }) => isRedelivered(outcome.kind));
 * ```
 */
export async function runBatch<T, R>(event: unknown, context: Context | undefined, resolved: ResolvedOptions<T, R>, source: RecordSource<R>): Promise<SettledRecord<R>[]> {
  checkDeployedConsumer(resolved.consumer);
  const records = source.records(event);
  await loadOtel();
  // In Lambda the alarms' metrics are written whether or not the handler gave `metrics`: one EMF line for the batch.
  const sink = invocationMetrics(resolved.metrics, resolved.consumer);
  const options: ResolvedOptions<T, R> = { ...resolved, metrics: sink.metrics };
  try {
    return await settle(records, context, options, source);
  } finally {
    sink.flush();
  }
}

// Every record through the rule, with the invocation's metrics.
async function settle<T, R>(records: readonly R[], context: Context | undefined, options: ResolvedOptions<T, R>, source: RecordSource<R>): Promise<SettledRecord<R>[]> {
  const remainingMs = remainingTime(context);
  const policy = transientRetry(options.maxRetries, remainingMs, options.deadlineMarginMs);
  const prepared = records.map((record) => prepare(record, options, source));
  const outcomes = new Map<PreparedRecord<R>, Outcome>();
  let batchFailed = false;
  let tableMissing: InboxTableMissingError | undefined;
  const outbox = options.outbox && outboxBatch({ ...options, outbox: options.outbox, remainingMs, policy });
  const work: BatchWork<T, R> = { options, defaultParse: (r) => source.parse(r), policy, outbox, remainingMs };
  const trace = startBatchTrace(options.consumer, source.system, prepared, (item) => tracedRecord(item, source));

  const lanes = laneItems(prepared, laneOf);
  // Statement mode: what one batch of statements settles first; the rest runs a statement a record.
  const batched = await runStatementBatch(lanes, work, (item, run) => trace.message(item).run(run));

  await runLanes(lanes, options.concurrency, async (lane) => {
    let laneFailed = false;
    for (const item of lane.items) {
      const started = Date.now();
      const span = trace.message(item);
      const early = batched.get(item);
      // A record the batch committed is processed; one it found claimed is held back as any other.
      const skipped = early?.result.kind === 'processed' ? undefined : skipError(item, { laneName: source.laneName, laneFailed, batchFailed, tableMissing }, work);
      const result: RecordResult = skipped
        ? { kind: 'skipped', error: skipped }
        : early?.result ?? await span.run(() => processRecord(item, work));
      if (tableMissing === undefined && isInboxTableMissing(result.error)) {
        tableMissing = result.error;
        reportMissingTable(tableMissing, options);
      }
      if (item.lane !== undefined && isRedelivered(result.kind)) {
        laneFailed = true;
        batchFailed = true;
      }
      const outcome = outcomeOf(item, result, early !== undefined && !skipped ? early.durationMs : Date.now() - started);
      outcomes.set(item, outcome);
      observe(outcome, options, span.traceId);
      span.end(outcome);
    }
  });
  // Before the batch answers: the rows its messages committed are sent, or left for the relay.
  try {
    await outbox?.sendAfterCommit();
  } finally {
    trace.end();
  }

  return prepared.map((item) => ({
    record: item.record,
    // Every record gets an outcome above; the fallback keeps a bug from acknowledging a record.
    outcome: outcomes.get(item) ?? outcomeOf(item, { kind: 'failed', error: new Error('no outcome was recorded') }, 0),
  }));
}
