import type { StoredMessage } from './queue.js';

/** A message a queue holds, as a test reads it without receiving it. */
export interface QueuedMessage {
  readonly messageId: string;
  readonly body: string;
  /** The message attributes by name (the `idempotency-key` among them): String and Number values as sent, Binary in base64. */
  readonly messageAttributes: Readonly<Record<string, string>>;
  /** FIFO only. */
  readonly groupId?: string;
  /** FIFO only: the id given, or the body's SHA-256 under content-based deduplication. */
  readonly deduplicationId?: string;
  /** Receives so far: 0 for a message nobody has received yet. */
  readonly receiveCount: number;
}

/**
 * What a test sees of a stored message: the fields an outbox or producer test checks, plain.
 *
 * @example
 * ```ts
 * queuedMessage(stored).messageAttributes['idempotency-key'] // the outbox row's id
 * ```
 */
export function queuedMessage(message: StoredMessage): QueuedMessage {
  const messageAttributes = Object.fromEntries(Object.entries(message.attributes)
    .map(([name, value]) => [name, value.StringValue ?? value.BinaryValue?.toString('base64') ?? '']));
  return {
    messageId: message.id,
    body: message.body,
    messageAttributes,
    ...(message.groupId !== undefined ? { groupId: message.groupId } : {}),
    ...(message.deduplicationId !== undefined ? { deduplicationId: message.deduplicationId } : {}),
    receiveCount: message.receiveCount,
  };
}
