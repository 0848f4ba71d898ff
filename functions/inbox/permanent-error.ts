// Marks a PermanentError, its subclasses (which set a name of their own) included, and one made by
// another copy of the kit in the same bundle, where instanceof would not see it.
const PERMANENT = Symbol.for('sqs-inbox.permanent-error');

/**
 * Thrown by a handler to say the message can never succeed: the transaction is rolled back, the
 * message is recorded as rejected with this error's message, acknowledged, and not retried.
 *
 * @example
 * ```ts
 * handle: async (order, { tx }) => {
 *   if (order.quantity <= 0) throw new PermanentError(`order ${order.id} has no quantity`);
 *   await tx.query(sql`UPDATE stock SET reserved = reserved + ${order.quantity} WHERE sku = ${order.sku}`);
 * }
 * ```
 */
export class PermanentError extends Error {
  public constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'PermanentError';
    Object.defineProperty(this, PERMANENT, { value: true });
  }
}

/**
 * Whether an error says its message can never succeed: a `PermanentError`, a subclass of it, or one
 * from another copy of the kit. False for a value that cannot be looked at (a revoked Proxy throws on
 * `instanceof`): such a message fails and is retried instead.
 *
 * @example
 * ```ts
 * isPermanentError(new UnknownOrderError(id)) // true for class UnknownOrderError extends PermanentError
 * ```
 */
export function isPermanentError(error: unknown): boolean {
  try {
    return error instanceof PermanentError || (typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[PERMANENT] === true);
  } catch {
    return false;
  }
}
