import { createHash } from 'node:crypto';

/** A message attribute as SQS stores it: a binary value already decoded from base64. */
export interface StoredAttribute {
  readonly DataType: string;
  readonly StringValue?: string;
  readonly BinaryValue?: Buffer;
}

/** Hex MD5 of a message body's UTF-8 bytes, as `MD5OfBody` and `MD5OfMessageBody`. */
export function md5OfBody(body: string): string {
  return createHash('md5').update(body, 'utf8').digest('hex');
}

function lengthPrefixed(bytes: Buffer): Buffer[] {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return [length, bytes];
}

/**
 * Hex MD5 of message attributes as SQS computes `MD5OfMessageAttributes` (and
 * `MD5OfMessageSystemAttributes`): attributes sorted by name; for each, the name, the data type,
 * a transport byte (1 for String and Number, 2 for Binary) and the value, every string and value
 * preceded by its length as a 4-byte big-endian integer. Undefined for no attributes, as SQS omits it.
 *
 * @example
 * ```ts
 * md5OfAttributes({ 'idempotency-key': { DataType: 'String', StringValue: 'k-1' } }) // 32 hex digits
 * ```
 */
export function md5OfAttributes(attributes: Readonly<Record<string, StoredAttribute>>): string | undefined {
  const names = Object.keys(attributes).sort();
  if (names.length === 0) return undefined;
  const parts: Buffer[] = [];
  for (const name of names) {
    const attribute = attributes[name]!;
    parts.push(...lengthPrefixed(Buffer.from(name, 'utf8')), ...lengthPrefixed(Buffer.from(attribute.DataType, 'utf8')));
    if (attribute.BinaryValue !== undefined) {
      parts.push(Buffer.from([2]), ...lengthPrefixed(attribute.BinaryValue));
    } else {
      parts.push(Buffer.from([1]), ...lengthPrefixed(Buffer.from(attribute.StringValue ?? '', 'utf8')));
    }
  }
  return createHash('md5').update(Buffer.concat(parts)).digest('hex');
}
