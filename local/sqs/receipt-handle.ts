import { randomBytes } from 'node:crypto';

/** What a receipt handle names: one receive of one message of one queue. */
export interface ReceiptHandleParts {
  readonly queueName: string;
  readonly messageId: string;
}

const SEPARATOR = '\u0000';

/**
 * A new opaque receipt handle for a receive of a message: base64 of the queue, the message and a
 * random nonce, so each receive gets a different handle and the handle alone finds the message.
 *
 * @example
 * ```ts
 * const handle = newReceiptHandle({ queueName: 'orders', messageId: 'm-1' });
 * parseReceiptHandle(handle) // { queueName: 'orders', messageId: 'm-1' }
 * ```
 */
export function newReceiptHandle(parts: ReceiptHandleParts): string {
  return Buffer.from([parts.queueName, parts.messageId, randomBytes(16).toString('hex')].join(SEPARATOR), 'utf8').toString('base64');
}

/** The queue and message a handle names, or undefined for a string that is no handle of this emulator. */
export function parseReceiptHandle(handle: unknown): ReceiptHandleParts | undefined {
  if (typeof handle !== 'string' || handle === '' || !/^[A-Za-z0-9+/]+=*$/.test(handle)) return undefined;
  const fields = Buffer.from(handle, 'base64').toString('utf8').split(SEPARATOR);
  if (fields.length !== 3 || !fields[0] || !fields[1] || !/^[0-9a-f]{32}$/.test(fields[2] ?? '')) return undefined;
  return { queueName: fields[0], messageId: fields[1] };
}
