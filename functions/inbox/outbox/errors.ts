import { InboxError } from '../errors.js';
import { PermanentError } from '../permanent-error.js';

/**
 * Base class of the outbox's own errors.
 *
 * @example
 * ```ts
 * catch (error) { if (error instanceof OutboxError) logger.error('the outbox refused', { error }); }
 * ```
 */
export class OutboxError extends InboxError {
  public constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'OutboxError';
  }
}

/**
 * A message names a target the consumer's options do not have: a mistake in the code or the
 * configuration, so the incoming message fails (and comes back) rather than being rejected.
 *
 * @example
 * ```ts
 * await outbox.send({ target: 'shiped', body }); // OutboxTargetError: no outbox target "shiped"; the targets are: shipped
 * ```
 */
export class OutboxTargetError extends OutboxError {
  public constructor(target: unknown, known: readonly string[]) {
    super(`There is no outbox target "${String(target)}"; the targets are: ${known.join(', ') || '(none)'}. Name one of them, or add it to the outbox option's targets.`);
    this.name = 'OutboxTargetError';
  }
}

/**
 * A message its target can never take (too large, no group on a FIFO target, attributes or a body
 * the target refuses), found when its row is written, before anything commits. It is a
 * `PermanentError`: thrown out of the handler (or out of statement mode's `messages`), it rolls the
 * transaction back and the incoming message is rejected with this reason. A handler may catch it and
 * send something else instead.
 *
 * @example
 * ```ts
 * try { await outbox.send({ target: 'shipped', body: hugeReport }); }
 * catch (error) { if (error instanceof OutboxMessageRefusedError) await outbox.send({ target: 'shipped', body: { reportUrl } }); else throw error; }
 * ```
 */
export class OutboxMessageRefusedError extends PermanentError {
  public constructor(target: string, reason: string) {
    super(`The outbox cannot send this message to target "${target}": ${reason}.`);
    this.name = 'OutboxMessageRefusedError';
  }
}
