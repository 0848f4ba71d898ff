import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { badRequest, transactionNotFound } from './service-errors.js';

/** A transaction the emulator holds open: its own connection, and whether a call is running on it. */
export interface OpenTransaction {
  readonly id: string;
  readonly database: string;
  readonly client: pg.Client;
  busy: boolean;
  timer: NodeJS.Timeout | undefined;
}

/**
 * The open transactions, by id. A transaction is rolled back and forgotten after `idleTimeoutMs`
 * without a call; a second call while one runs is refused at once, as the service refuses it.
 *
 * @example
 * ```ts
 * const transactions = new Transactions(180_000);
 * const id = await transactions.begin('app', client);
 * const tx = transactions.take(id); // ... run a statement on tx.client ...
 * transactions.release(tx);
 * ```
 */
export class Transactions {
  private readonly open = new Map<string, OpenTransaction>();

  public constructor(private readonly idleTimeoutMs: number) {}

  /** How many are open. */
  public get size(): number {
    return this.open.size;
  }

  /** Starts a transaction on a client of its own and returns its id. */
  public async begin(database: string, client: pg.Client): Promise<string> {
    try {
      await client.query('BEGIN');
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    const id = randomBytes(66).toString('base64');
    const tx: OpenTransaction = { id, database, client, busy: false, timer: undefined };
    this.open.set(id, tx);
    // A connection that breaks ends its transaction, as a failover would.
    client.on('end', () => this.forget(tx));
    this.arm(tx);
    return id;
  }

  /** The transaction, marked busy for one call. */
  public take(id: unknown): OpenTransaction {
    if (typeof id !== 'string' || id === '') throw badRequest('transactionId must be a non-empty string.');
    const tx = this.open.get(id);
    if (tx === undefined) throw transactionNotFound(id);
    if (tx.busy) throw badRequest('Transaction is still running a query');
    tx.busy = true;
    clearTimeout(tx.timer);
    return tx;
  }

  /** The call on `tx` is over; the idle clock starts again. */
  public release(tx: OpenTransaction): void {
    tx.busy = false;
    if (this.open.get(tx.id) === tx) this.arm(tx);
  }

  /** Ends `tx` with COMMIT or ROLLBACK and forgets it, whatever the statement does. */
  public async finish(tx: OpenTransaction, statement: 'COMMIT' | 'ROLLBACK'): Promise<void> {
    this.forget(tx);
    try {
      await tx.client.query(statement);
    } finally {
      await tx.client.end().catch(() => undefined);
    }
  }

  /** Rolls `tx` back and forgets it, ignoring a connection that is already gone. */
  public async abort(tx: OpenTransaction): Promise<void> {
    await this.finish(tx, 'ROLLBACK').catch(() => undefined);
  }

  /** Rolls every open transaction back. */
  public async closeAll(): Promise<void> {
    await Promise.all([...this.open.values()].map((tx) => this.abort(tx)));
  }

  private arm(tx: OpenTransaction): void {
    clearTimeout(tx.timer);
    tx.timer = setTimeout(() => { void this.abort(tx); }, this.idleTimeoutMs);
    tx.timer.unref();
  }

  private forget(tx: OpenTransaction): void {
    clearTimeout(tx.timer);
    if (this.open.get(tx.id) === tx) this.open.delete(tx.id);
  }
}
