import { InboxConfigError } from '../errors.js';
import type { StatementContext } from '../statement-context.js';
import type { OutboxMessage } from './outbox-message.js';
import { resolvePublisher, type Publisher, type ResolvedPublisher } from './publisher.js';

/**
 * What the outbox did for one batch, after its commits: told to `onDispatch`, logged and counted.
 *
 * @example
 * ```ts
 * onDispatch: (report: OutboxDispatchReport) => { if (report.left > 0) logger.warn('rows left for the relay', { ...report }); }
 * ```
 */
export interface OutboxDispatchReport {
  /** Rows written by the batch's messages that committed. */
  readonly written: number;
  /** Rows this invocation sent after the commit and marked dispatched. */
  readonly sent: number;
  /** Rows their target refused for ever, marked failed with the reason. */
  readonly failed: number;
  /** Rows left undispatched for the relay: a send that did not go, rows behind another's in their group, no time left. */
  readonly left: number;
  readonly durationMs: number;
}

/**
 * The outbox of a consumer: the targets its messages may name, and how hard the invocation tries
 * to send them after the commit before leaving them to the relay. `K` is the targets' names.
 *
 * @example
 * ```ts
 * outbox: { targets: { shipped: sqsTarget({ queueUrl }) } }
 * ```
 */
export interface OutboxOptions<K extends string = string> {
  /**
   * The targets by name: `sqsTarget`, `snsTarget`, `eventBridgeTarget` (sqs-inbox/outbox),
   * `outboxTargetsFromEnv()`, or a `Publisher` of your own. Their names type the messages' `target`.
   */
  readonly targets: Readonly<Record<K, Publisher>>;
  /**
   * Calls that carry a row after the commit, the first included; a row that did not go by then is left for the relay.
   * @default 3
   */
  readonly maxAttempts?: number;
  /**
   * Called once per batch that wrote rows, with what became of them; a throw here is logged and ignored.
   * @default none
   */
  readonly onDispatch?: (report: OutboxDispatchReport) => void;
}

/**
 * Statement mode's outbox: the messages a message sends on, written by CTEs of its guarded
 * statement (still one database call a message).
 *
 * @example
 * ```ts
 * outbox: { targets, messages: (order) => [{ target: 'shipped', body: { orderId: order.orderId }, groupId: order.customerId }] }
 * ```
 */
export interface StatementOutboxOptions<T, R, K extends string = string> extends OutboxOptions<K> {
  /** The messages to send on when this message's statement commits; a throw fails the message, an `OutboxMessageRefusedError` rejects it. */
  readonly messages: (message: T, ctx: StatementContext<R>) => readonly OutboxMessage<K>[];
}

/**
 * `ctx.outbox` of transaction mode. `K` is the names of the outbox option's targets: where the
 * options are inferred, a name that is not one of them does not compile.
 *
 * @example
 * ```ts
 * handle: async (order, { tx, outbox }) => {
 *   await tx.query(sql`UPDATE orders SET status = 'shipped' WHERE order_id = ${sql.uuid(order.orderId)}`);
 *   await outbox.send({ target: 'shipped', body: { orderId: order.orderId }, groupId: order.customerId });
 * }
 * ```
 */
export interface OutboxContext<K extends string = string> {
  /**
   * Writes the message's row in the claim's transaction and answers its id, the idempotency key
   * it goes out with. It is sent after the commit, or never if the transaction rolls back. Throws
   * `OutboxMessageRefusedError` (a `PermanentError`) for a message its target can never take and
   * `OutboxTargetError` for a target the options do not name.
   */
  send(message: OutboxMessage<K>): Promise<string>;
}

/** The outbox options after defaults and checks. */
export interface ResolvedOutbox {
  readonly publishers: ReadonlyMap<string, ResolvedPublisher>;
  readonly maxAttempts: number;
  readonly messages: ((message: unknown, ctx: StatementContext<unknown>) => readonly OutboxMessage[]) | undefined;
  readonly onDispatch: ((report: OutboxDispatchReport) => void) | undefined;
}

const OUTBOX_DEFAULTS = { maxAttempts: 3 } as const;

/**
 * The targets as publishers with their limits, checked once.
 *
 * @example
 * ```ts
 * resolvePublishers({ shipped: sqsTarget({ queueUrl }) }).get('shipped')!.fifo // false
 * ```
 */
export function resolvePublishers(targets: Readonly<Record<string, Publisher>> | undefined): Map<string, ResolvedPublisher> {
  if (typeof targets !== 'object' || targets === null || Object.keys(targets).length === 0) {
    throw new InboxConfigError('outbox targets must name at least one target: { targets: { shipped: sqsTarget({ queueUrl }) } }.');
  }
  return new Map(Object.entries(targets).map(([name, publisher]) => [name, resolvePublisher(name, publisher)]));
}

/**
 * The `outbox` option merged with its defaults and checked, or undefined when there is none.
 * Statement mode needs `messages`; transaction mode sends with `ctx.outbox.send` and takes none.
 *
 * @example
 * ```ts
 * resolveOutbox({ targets: { shipped: sqsTarget({ queueUrl }) } }, 'transaction')!.maxAttempts // 3
 * ```
 */
export function resolveOutbox(outbox: OutboxOptions | undefined, mode: 'transaction' | 'statement'): ResolvedOutbox | undefined {
  if (outbox === undefined) return undefined;
  if (typeof outbox !== 'object' || outbox === null) throw new InboxConfigError('outbox must be an object: { targets: { ... } }.');
  const { messages } = outbox as Partial<StatementOutboxOptions<unknown, unknown>>;
  if (mode === 'statement' && typeof messages !== 'function') {
    throw new InboxConfigError('In statement mode the outbox needs messages: (message, ctx) => [{ target, body }], the rows written with the statement.');
  }
  if (mode === 'transaction' && messages !== undefined) {
    throw new InboxConfigError('In transaction mode the outbox takes no messages function: call ctx.outbox.send(message) inside handle.');
  }
  const maxAttempts = outbox.maxAttempts ?? OUTBOX_DEFAULTS.maxAttempts;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1 || maxAttempts > 10) {
    throw new InboxConfigError(`outbox maxAttempts must be a whole number from 1 to 10, but ${String(maxAttempts)} was given.`);
  }
  if (outbox.onDispatch !== undefined && typeof outbox.onDispatch !== 'function') throw new InboxConfigError('outbox onDispatch must be a function.');
  return {
    publishers: resolvePublishers(outbox.targets),
    maxAttempts,
    messages: messages as ResolvedOutbox['messages'],
    onDispatch: outbox.onDispatch,
  };
}
