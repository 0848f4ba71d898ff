import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { badRequest, serviceUnavailable, transactionNotFound } from './service-errors.js';

/** A transaction the emulator holds open: its own connection, and whether a call is running on it. */
export interface OpenTransaction {
  readonly id: string;
  readonly database: string;
  readonly client: pg.PoolClient;
  busy: boolean;
  timer: NodeJS.Timeout | undefined;
  /** When its last call ended (or it began): its idle clock runs from here. */
  idleSince: number;
  /** Hands the connection back to the pool, once; with an error it is destroyed instead of reused. */
  giveBack(error?: Error): void;
}

/**
 * The open transactions, by id. A transaction is rolled back and forgotten after `idleTimeoutMs`
 * without a call; a second call while one runs is refused at once, as the service refuses it.
 * `setIdleTimeout` replaces the timeout while they run.
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
  private closed = false;

  public constructor(private idleTimeoutMs: number) {}

  /** How many are open. */
  public get size(): number {
    return this.open.size;
  }

  /** Starts a transaction on a connection of its own and returns its id. */
  public async begin(database: string, client: pg.PoolClient): Promise<string> {
    // A connection that breaks ends its transaction, as a failover would; its error must not take the emulator down.
    const ignore = () => undefined;
    const ended = () => {
      this.forget(tx);
      tx.giveBack(new Error('The connection of the transaction ended.'));
    };
    let released = false;
    const tx: OpenTransaction = {
      id: randomBytes(66).toString('base64'),
      database,
      client,
      busy: false,
      timer: undefined,
      idleSince: Date.now(),
      giveBack: (error) => {
        if (released) return;
        released = true;
        client.off('error', ignore);
        client.off('end', ended);
        client.release(error);
      },
    };
    client.on('error', ignore);
    client.on('end', ended);
    try {
      await client.query('BEGIN');
    } catch (error) {
      tx.giveBack(error as Error);
      throw error;
    }
    // A Begin that raced the shutdown must not keep its connection checked out of a closing pool.
    if (this.closed) {
      await this.abort(tx);
      throw serviceUnavailable('The service is shutting down.');
    }
    this.open.set(tx.id, tx);
    tx.idleSince = Date.now();
    this.arm(tx);
    return tx.id;
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
    tx.idleSince = Date.now();
    if (this.open.get(tx.id) === tx) this.arm(tx);
  }

  /**
   * Replaces the idle timeout. An idle transaction keeps the clock it has run since its last call,
   * so one already idle for `ms` or longer is rolled back now.
   */
  public setIdleTimeout(ms: number): void {
    this.idleTimeoutMs = ms;
    for (const tx of this.open.values()) if (!tx.busy) this.arm(tx);
  }

  /** Ends `tx` with COMMIT or ROLLBACK and forgets it, whatever the statement does. */
  public async finish(tx: OpenTransaction, statement: 'COMMIT' | 'ROLLBACK'): Promise<void> {
    this.forget(tx);
    let broken: Error | undefined;
    try {
      await tx.client.query(statement);
    } catch (error) {
      broken = error as Error;
      throw error;
    } finally {
      // A connection whose COMMIT or ROLLBACK failed is not handed to the next transaction.
      tx.giveBack(broken);
    }
  }

  /** Rolls `tx` back and forgets it, ignoring a connection that is already gone. */
  public async abort(tx: OpenTransaction): Promise<void> {
    await this.finish(tx, 'ROLLBACK').catch(() => undefined);
  }

  /** Rolls every open transaction back and refuses new ones. */
  public async closeAll(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.open.values()].map((tx) => this.abort(tx)));
  }

  private arm(tx: OpenTransaction): void {
    clearTimeout(tx.timer);
    const left = Math.max(0, tx.idleSince + this.idleTimeoutMs - Date.now());
    tx.timer = setTimeout(() => { void this.abort(tx); }, left);
    tx.timer.unref();
  }

  private forget(tx: OpenTransaction): void {
    clearTimeout(tx.timer);
    if (this.open.get(tx.id) === tx) this.open.delete(tx.id);
  }
}
