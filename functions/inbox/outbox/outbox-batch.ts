import { randomUUID } from 'node:crypto';
import type { GuardedAddition } from '../claim/claim.js';
import type { Database, Row, Transaction } from '../database/database.js';
import { InboxConfigError } from '../errors.js';
import type { StatementContext } from '../statement-context.js';
import type { InboxLogger, InboxMetrics } from '../telemetry.js';
import { uuidv7 } from '../producer/uuid-v7.js';
import type { RetryPolicy } from '../retry.js';
import type { SqlStatement } from '../sql/sql.js';
import { OutboxTargetError } from './errors.js';
import { dispatchRows, MAX_LEASE_MS } from './dispatch.js';
import { activeTraceparent } from '../trace/outgoing-context.js';
import { WRITTEN_ROWS_COLUMN, writeCtes, writtenRowsStatement, writeStatement, writtenRow, type RowToWrite, type WriteLease, type WrittenRow, type WrittenRowRecord } from './outbox-table.js';
import type { OutboxMessage } from './outbox-message.js';
import type { OutboxContext, OutboxDispatchReport, ResolvedOutbox } from './outbox-options.js';
import { observeDispatch } from './observe-outbox.js';
import type { QueuedRow } from './send-rows.js';

/** The rows one transaction attempt (or one guarded statement) wrote, kept until it commits. */
interface Written {
  readonly row: QueuedRow;
  readonly written: WrittenRow;
}

/** Transaction mode: `ctx.outbox` of one attempt, and what to do once it committed. */
export interface TransactionWrites {
  readonly context: OutboxContext;
  committed(): void;
}

/** Statement mode: a message's rows as CTEs of its guarded statement, and what to do once it committed. */
export interface StatementWrites {
  /** The rows' CTEs and answer column, given the claim's rows; undefined when the message sends nothing. */
  readonly addition: ((claimed: SqlStatement) => GuardedAddition) | undefined;
  committed(answer: Row | undefined): void;
  /** Batched statement mode: committed, with the place and lease of each row read apart (a row not given is not leased). */
  committedRows(written: readonly WrittenRow[]): void;
  /** The rows' ids, and whether each waits its turn in a FIFO group (then only a read tells its place and lease). */
  readonly rows: readonly { readonly id: string; readonly ordered: boolean }[];
}

/** The outbox of one batch: writes rows under the batch's lease and sends the committed ones before the batch answers. */
export interface OutboxBatch {
  inTransaction(tx: Transaction, key: string): TransactionWrites;
  inStatement(message: unknown, ctx: StatementContext<unknown>): StatementWrites;
  /**
   * Batched statement mode: the statements of `writes` committed in a batch, which answers no rows.
   * A row to a standard target is leased to the batch; the place and lease of FIFO rows are read
   * in one statement (when that read fails, they are left to the relay).
   */
  committedInBatch(writes: readonly StatementWrites[]): Promise<void>;
  sendAfterCommit(): Promise<OutboxDispatchReport | undefined>;
}

/** What a batch's outbox needs from the pipeline. */
export interface OutboxBatchSettings {
  readonly outbox: ResolvedOutbox;
  readonly consumer: string;
  readonly db: Database;
  readonly remainingMs: () => number;
  /** No send is started with less than this left; calls in flight are aborted at half of it. */
  readonly deadlineMarginMs: number;
  /** The pipeline's in-place retries of transient database errors, for the mark. */
  readonly policy: RetryPolicy;
  readonly logger: InboxLogger | undefined;
  readonly metrics: InboxMetrics | undefined;
}

/**
 * `ctx.outbox` when the options have no outbox: a send is a mistake of the code, so the message fails.
 *
 * @example
 * ```ts
 * await handle(message, { tx, record, key, outbox: NO_OUTBOX });
 * ```
 */
export const NO_OUTBOX: OutboxContext = {
  send: () => Promise.reject(new InboxConfigError('ctx.outbox.send needs the outbox option: { outbox: { targets: { ... } } } in the inbox options.')),
};

/**
 * The outbox of one batch. Rows are written leased to the batch (its random holder id) until the
 * invocation's deadline; a FIFO group's row is leased only when nobody else has open rows in the
 * group. Once every record is done, the committed leased rows are sent (`sendRows`) and marked in
 * one statement; what did not go keeps its lease until the deadline and is then the relay's.
 *
 * @example
 * ```ts
 * const outbox = outboxBatch({ outbox: options.outbox, consumer, db, remainingMs, deadlineMarginMs, policy, logger, metrics });
 * // ... records ...
 * await outbox.sendAfterCommit();
 * ```
 */
export function outboxBatch(settings: OutboxBatchSettings): OutboxBatch {
  const holder = randomUUID();
  const batch: BatchState = {
    settings,
    holder,
    committed: [],
    leaseOf: (key) => ({ consumer: settings.consumer, key, holder, leaseMs: Math.min(settings.remainingMs(), MAX_LEASE_MS) }),
  };
  return {
    inTransaction: (tx, key) => transactionWrites(batch, tx, key),
    inStatement: (message, ctx) => statementWrites(batch, message, ctx),
    committedInBatch: (writes) => readBackBatch(batch, writes),
    sendAfterCommit: () => sendCommitted(batch),
  };
}

/** One batch's outbox: its settings, its lease holder and the rows its committed messages wrote. */
interface BatchState {
  readonly settings: OutboxBatchSettings;
  readonly holder: string;
  readonly committed: Written[];
  readonly leaseOf: (key: string) => WriteLease;
}

/** A message checked by its target's publisher: the row to write and the entry to send once it committed. */
function preparedRow(settings: OutboxBatchSettings, message: OutboxMessage): { toWrite: RowToWrite; row: QueuedRow } {
  const { outbox, consumer } = settings;
  const target = (message as Partial<OutboxMessage> | null)?.target;
  const publisher = typeof target === 'string' ? outbox.publishers.get(target) : undefined;
  if (publisher === undefined) throw new OutboxTargetError(target, [...outbox.publishers.keys()]);
  const id = uuidv7();
  const checked = publisher.prepare(message, { id, consumer, target: publisher.name });
  // The span the row is written in (the incoming message's) is the one the next consumer continues.
  const traceparent = activeTraceparent();
  const entry = { id, consumer, target: publisher.name, body: checked.body, attributes: checked.attributes, groupId: checked.groupId, detailType: checked.detailType, traceparent };
  return { toWrite: { id, target: publisher.name, ordered: publisher.fifo, message: checked, traceparent }, row: { entry, groupSeq: null, sizeBytes: checked.sizeBytes } };
}

/** The rows with the place and lease the database answered for each (a row not answered is not leased). */
function keepWritten(rows: readonly { row: QueuedRow }[], written: readonly WrittenRow[]): Written[] {
  return rows.map(({ row }) => {
    const answer = written.find((w) => w.id === row.entry.id) ?? { id: row.entry.id, groupSeq: null, leased: false };
    return { row: { ...row, groupSeq: answer.groupSeq }, written: answer };
  });
}

function transactionWrites(batch: BatchState, tx: Transaction, key: string): TransactionWrites {
  const pending: Written[] = [];
  return {
    context: {
      async send(message) {
        const { toWrite, row } = preparedRow(batch.settings, message);
        const { rows } = await tx.query<WrittenRowRecord>(writeStatement([toWrite], batch.leaseOf(key)));
        pending.push(...keepWritten([{ row }], rows.map(writtenRow)));
        return row.entry.id;
      },
    },
    committed: () => batch.committed.push(...pending),
  };
}

function statementWrites(batch: BatchState, message: unknown, ctx: StatementContext<unknown>): StatementWrites {
  const produced = batch.settings.outbox.messages?.(message, ctx) ?? [];
  if (!Array.isArray(produced)) throw new InboxConfigError('outbox messages must return an array of messages.');
  const rows = (produced as readonly OutboxMessage[]).map((m) => preparedRow(batch.settings, m));
  const committedRows = (written: readonly WrittenRow[]) => { batch.committed.push(...keepWritten(rows, written)); };
  return {
    addition: rows.length === 0
      ? undefined
      : (claimed) => ({ ctes: writeCtes(rows.map(({ toWrite }) => toWrite), batch.leaseOf(ctx.key), claimed), columns: WRITTEN_ROWS_COLUMN }),
    rows: rows.map(({ toWrite }) => ({ id: toWrite.id, ordered: toWrite.ordered && toWrite.message.groupId !== undefined })),
    committed: (answer) => committedRows(Array.isArray(answer?.['outbox_written']) ? (answer['outbox_written'] as [string, number | null, boolean][]).map(writtenRow) : []),
    committedRows,
  };
}

async function readBackBatch(batch: BatchState, writes: readonly StatementWrites[]): Promise<void> {
  const ordered = writes.flatMap((w) => w.rows.filter((row) => row.ordered).map((row) => row.id));
  const read = new Map<string, WrittenRow>();
  if (ordered.length > 0) {
    try {
      const { rows } = await batch.settings.db.query<WrittenRowRecord>(writtenRowsStatement(ordered, batch.holder));
      for (const row of rows) read.set(String(row.id), writtenRow(row));
    } catch (error) {
      batch.settings.logger?.warn('outbox: the batch\'s FIFO rows could not be read back; the relay will send them', { error: error as Error });
    }
  }
  for (const w of writes) {
    w.committedRows(w.rows.flatMap(({ id, ordered: waits }): WrittenRow[] => {
      if (!waits) return [{ id, groupSeq: null, leased: true }];
      const row = read.get(id);
      return row === undefined ? [] : [row];
    }));
  }
}

async function sendCommitted(batch: BatchState): Promise<OutboxDispatchReport | undefined> {
  const { settings, committed } = batch;
  if (committed.length === 0) return undefined;
  const started = Date.now();
  let report: OutboxDispatchReport = { written: committed.length, sent: 0, failed: 0, left: committed.length, durationMs: 0 };
  try {
    const mine = committed.filter(({ written }) => written.leased).map(({ row }) => row);
    if (mine.length > 0 && settings.remainingMs() >= settings.deadlineMarginMs) {
      const { sent, failed } = await dispatchRows(mine, {
        db: settings.db, publishers: settings.outbox.publishers, holder: batch.holder, attempts: settings.outbox.maxAttempts,
        remainingMs: settings.remainingMs, marginMs: settings.deadlineMarginMs, policy: settings.policy,
      });
      report = { ...report, sent, failed, left: committed.length - sent - failed };
    }
  } catch (error) {
    // Rows not marked keep their lease until the deadline; the relay sends them then (again, perhaps: the key dedups).
    settings.logger?.warn('outbox: the rows of this batch were not all sent and marked; the relay will send the rest', { error: error as Error });
  }
  report = { ...report, durationMs: Date.now() - started };
  observeDispatch(report, { consumer: settings.consumer, logger: settings.logger, metrics: settings.metrics, onDispatch: settings.outbox.onDispatch });
  return report;
}
