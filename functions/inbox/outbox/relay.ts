import { randomUUID } from 'node:crypto';
import { TIME_DEFAULTS } from '../contract.js';
import type { Database } from '../database/database.js';
import { joinedParts, partsOf, VALUE_PART_BYTES, VALUE_READ_BYTES } from '../database/value-parts.js';
import { InboxConfigError } from '../errors.js';
import { recordKitRun } from '../kit-run.js';
import { invocationMetrics } from '../metric-log.js';
import type { InboxLogger, InboxMetrics } from '../telemetry.js';
import { transientRetry } from '../transient.js';
import { retry, type RetryPolicy } from '../retry.js';
import { dispatchRows, MAX_LEASE_MS } from './dispatch.js';
import { observeRelay } from './observe-outbox.js';
import { resolvePublishers } from './outbox-options.js';
import { leaseOf, leaseStatement, oldestOpenStatement, payloadStatement, type LeasedRow, type LeaseRecord } from './outbox-table.js';
import type { Publisher } from './publisher.js';
import type { QueuedRow } from './send-rows.js';

/** Options of `relayOutbox`. */
export interface RelayOptions {
  /** The consumer whose rows this relay sends: rows name their targets by the names of its options. */
  readonly consumer: string;
  /**
   * A row is left to the invocation that wrote it for this long before the relay sends it.
   * @default 30000
   */
  readonly graceMs?: number;
  /**
   * Rows of FIFO groups, and unordered rows, leased a pass (each at most this many).
   * @default 100
   */
  readonly batchSize?: number;
  /**
   * Milliseconds left to work; the run's lease lasts as long.
   * @default no deadline, and a lease of 60 s
   */
  readonly remainingMs?: () => number;
  /**
   * No pass, and no send, is started with less time left than this: a run given less does nothing
   * and says so (`ended: 'noTime'`, and a warning).
   * @default 5000
   */
  readonly marginMs?: number;
  /**
   * Calls that carry a row in a run, the first included; a row that did not go is tried again by a later run.
   * @default 3
   */
  readonly maxAttempts?: number;
  /**
   * In-place retries of serialization failures, deadlocks and a resuming database.
   * @default 3
   */
  readonly maxRetries?: number;
  /** @default none */
  readonly logger?: InboxLogger;
  /** @default none */
  readonly metrics?: InboxMetrics;
}

/** What a relay run did. */
export interface RelayReport {
  /** Rows sent and marked dispatched. */
  readonly sent: number;
  /** Rows their target refused for ever, marked failed with the reason. */
  readonly failed: number;
  /** Rows leased that did not go: tried again by a later run. */
  readonly left: number;
  /** Lease passes made. */
  readonly passes: number;
  /** Rows neither dispatched nor failed after the run, this consumer's. */
  readonly undispatched: number;
  /** The age of the oldest of them in milliseconds, 0 when there is none. */
  readonly oldestUndispatchedAgeMs: number;
  /**
   * Why the run stopped: `'caughtUp'`, a pass leased nothing (no row due that another does not
   * hold); `'deadline'`, less than `marginMs` was left after a pass; `'noTime'`, less than
   * `marginMs` was left at the start, so nothing was leased or sent (a function timeout at or under
   * the margin, or a margin too large for it).
   */
  readonly ended: 'caughtUp' | 'deadline' | 'noTime';
}

const RELAY_DEFAULTS = { graceMs: TIME_DEFAULTS.relayGraceMs, batchSize: 100, marginMs: 5000, maxAttempts: 3, maxRetries: 3, leaseMs: 60_000 } as const;
/** A page of payload parts: at most `VALUE_READ_BYTES` (a third more in base64) and this many parts. */
const PAGE_PARTS = 100;

function checked(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new InboxConfigError(`relayOutbox ${name} must be a whole number from ${min} to ${max}, but ${String(value)} was given.`);
  }
  return value;
}

/** The payload parts of the rows in pages that each fit one Data API answer. */
function pagesOf(rows: readonly LeasedRow[]): { id: string; part: number }[][] {
  const pages: { id: string; part: number }[][] = [];
  let page: { id: string; part: number }[] = [];
  let bytes = 0;
  for (const row of rows) {
    const parts = partsOf(row.payloadBytes);
    for (let part = 0; part < parts; part += 1) {
      const size = Math.min(VALUE_PART_BYTES, row.payloadBytes - part * VALUE_PART_BYTES);
      if (page.length > 0 && (bytes + size > VALUE_READ_BYTES || page.length === PAGE_PARTS)) {
        pages.push(page);
        page = [];
        bytes = 0;
      }
      page.push({ id: row.id, part });
      bytes += size;
    }
  }
  if (page.length > 0) pages.push(page);
  return pages;
}

/** The rows' attributes and bodies, read in parts and put together. */
async function readPayloads(db: Database, rows: readonly LeasedRow[], policy: RetryPolicy): Promise<Map<string, { attributes: Record<string, string>; body: string }>> {
  const parts = new Map<string, (Uint8Array | null)[]>();
  for (const page of pagesOf(rows)) {
    const { rows: read } = await retry(() => db.query<{ id: string; part: number; bytes: Uint8Array | null }>(payloadStatement(page)), policy);
    for (const { id, part, bytes } of read) {
      const list = parts.get(id) ?? [];
      list[Number(part)] = bytes;
      parts.set(id, list);
    }
  }
  const payloads = new Map<string, { attributes: Record<string, string>; body: string }>();
  for (const [id, list] of parts) {
    const text = joinedParts(list);
    const newline = text.indexOf('\n');
    payloads.set(id, { attributes: JSON.parse(text.slice(0, newline)) as Record<string, string>, body: text.slice(newline + 1) });
  }
  return payloads;
}

/**
 * The outbox relay, for a scheduled Lambda (every minute, say): sends the consumer's rows that
 * the invocation which wrote them did not send (it crashed between the commit and the send, or
 * between the send and the mark, or the send failed) once they are older than `graceMs` and their
 * lease ran out, oldest first, and marks each by its target's answer.
 *
 * - Rows and groups are leased `FOR UPDATE SKIP LOCKED` in one statement, so two relays at once
 *   never send one row; what a relay leases is its until its deadline.
 * - A FIFO group is held by one sender at a time and sent from its head, in order, one row of a
 *   group a call, nothing after a row that did not go: a later row never overtakes an earlier unsent
 *   one, across batches and relays. A row refused for ever closes its place, and the group goes on.
 * - A row its target refuses for ever (too large, the queue or topic gone, a detail EventBridge
 *   refuses) is marked failed with the reason and counted, never sent again and never deleted; a
 *   transient failure leaves the row leased until the run's deadline, for a later run.
 * - Bodies are read in parts of 32 KiB, so a row of 1 MiB passes the Data API's limits.
 * - The run ends by recording itself in `kit_run` (when it ran, its report), which `sqs-inbox status` shows.
 *
 * @example
 * ```ts
 * import { outboxTargetsFromEnv, relayOutbox } from 'sqs-inbox/outbox';
 * import { dataApiDatabaseFromEnv } from 'sqs-inbox/data-api';
 *
 * const db = dataApiDatabaseFromEnv();
 * const targets = outboxTargetsFromEnv();
 * export const handler = async (_event: unknown, context: Context) =>
 *   relayOutbox(db, targets, { consumer: 'ship-orders', remainingMs: () => context.getRemainingTimeInMillis() });
 * ```
 */
export async function relayOutbox(db: Database, targets: Readonly<Record<string, Publisher>>, options: RelayOptions): Promise<RelayReport> {
  if (typeof options?.consumer !== 'string' || options.consumer === '') throw new InboxConfigError('relayOutbox needs the consumer whose rows it sends: { consumer: \'ship-orders\' }.');
  if (!db || typeof db.query !== 'function') throw new InboxConfigError('relayOutbox needs a Database: pgDatabase(...) or dataApiDatabase(...).');
  const publishers = resolvePublishers(targets);
  const graceMs = checked('graceMs', options.graceMs ?? RELAY_DEFAULTS.graceMs, 0, 86_400_000);
  const batchSize = checked('batchSize', options.batchSize ?? RELAY_DEFAULTS.batchSize, 1, 1000);
  const marginMs = checked('marginMs', options.marginMs ?? RELAY_DEFAULTS.marginMs, 0, MAX_LEASE_MS);
  const attempts = checked('maxAttempts', options.maxAttempts ?? RELAY_DEFAULTS.maxAttempts, 1, 10);
  const maxRetries = checked('maxRetries', options.maxRetries ?? RELAY_DEFAULTS.maxRetries, 0, 10);
  const startedAt = Date.now();
  const remainingMs = options.remainingMs ?? (() => RELAY_DEFAULTS.leaseMs - (Date.now() - startedAt));
  const policy = transientRetry(maxRetries, remainingMs, marginMs);
  const holder = `relay:${randomUUID()}`;
  const totals = { sent: 0, failed: 0, left: 0, passes: 0 };
  let ended: RelayReport['ended'] = 'deadline';

  while (remainingMs() >= marginMs) {
    const { rows: records } = await retry(() => db.query<LeaseRecord>(leaseStatement({
      consumer: options.consumer, targets: [...publishers.keys()], holder, leaseMs: Math.min(remainingMs(), MAX_LEASE_MS), graceMs, batchSize,
    })), policy);
    totals.passes += 1;
    const { rows, groups } = leaseOf(records);
    if (rows.length === 0 && groups.length === 0) {
      ended = 'caughtUp';
      break;
    }
    const payloads = rows.length > 0 ? await readPayloads(db, rows, policy) : new Map();
    const queued: QueuedRow[] = rows.map((row) => {
      const payload = payloads.get(row.id) ?? { attributes: {}, body: '' };
      return {
        entry: { id: row.id, consumer: row.consumer, target: row.target, body: payload.body, attributes: payload.attributes, groupId: row.groupId, detailType: row.detailType, traceparent: row.traceparent },
        groupSeq: row.groupSeq,
        sizeBytes: row.sizeBytes,
      };
    });
    const counts = await dispatchRows(queued, { db, publishers, holder, attempts, remainingMs, marginMs, policy }, groups);
    totals.sent += counts.sent;
    totals.failed += counts.failed;
    totals.left += counts.left;
  }

  // The loop makes a pass whenever it is entered: none means the run began under its margin.
  if (totals.passes === 0) ended = 'noTime';
  const { rows: [open] } = await retry(() => db.query<{ age_ms: number | null; open_rows: number }>(oldestOpenStatement(options.consumer)), policy);
  const report: RelayReport = { ...totals, ended, undispatched: Number(open?.open_rows ?? 0), oldestUndispatchedAgeMs: Math.max(0, Math.round(Number(open?.age_ms ?? 0))) };
  // In Lambda the age and counts its alarms read are written whether or not `metrics` was given.
  const sink = invocationMetrics(options.metrics, options.consumer);
  observeRelay(report, { consumer: options.consumer, logger: options.logger, metrics: sink.metrics });
  sink.flush();
  await recordRun(db, report, options, policy);
  return report;
}

/**
 * The run's row in kit_run, for `sqs-inbox status`. What was sent is sent whatever happens here:
 * a database whose kit migrations predate the table (or a role without its grant) loses the row, said once in the log.
 */
async function recordRun(db: Database, report: RelayReport, options: RelayOptions, policy: RetryPolicy): Promise<void> {
  try {
    await retry(() => recordKitRun(db, 'relay', report, options.consumer), policy);
  } catch (error) {
    options.logger?.warn('outbox relay: its run was not recorded in kit_run (are the kit\'s migrations applied?)', { consumer: options.consumer, error: error instanceof Error ? error.message : String(error) });
  }
}
