const SEED = 0x9747b28c;
const M = 0x5bd1e995;
const R = 24;

/**
 * Kafka's murmur2 hash of a key's bytes, as the Java client's `Utils.murmur2` computes it (a signed
 * 32-bit integer), so a key lands on the partition a real producer would pick.
 *
 * @example
 * ```ts
 * murmur2(Buffer.from('21')) // -973932308, one of Kafka's own test vectors
 * ```
 */
export function murmur2(data: Uint8Array): number {
  const length = data.length;
  let h = (SEED ^ length) | 0;
  const whole = length - (length % 4);
  for (let i = 0; i < whole; i += 4) {
    let k = (data[i]! & 0xff) | ((data[i + 1]! & 0xff) << 8) | ((data[i + 2]! & 0xff) << 16) | ((data[i + 3]! & 0xff) << 24);
    k = Math.imul(k, M);
    k ^= k >>> R;
    k = Math.imul(k, M);
    h = Math.imul(h, M);
    h ^= k;
  }
  const tail = length % 4;
  if (tail === 3) h ^= (data[whole + 2]! & 0xff) << 16;
  if (tail >= 2) h ^= (data[whole + 1]! & 0xff) << 8;
  if (tail >= 1) {
    h ^= data[whole]! & 0xff;
    h = Math.imul(h, M);
  }
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}

/**
 * The partition of a keyed record, as Kafka's default partitioner chooses it:
 * `toPositive(murmur2(key)) % partitions`.
 *
 * @example
 * ```ts
 * partitionForKey(Buffer.from('order-1'), 3) // the same partition every time, 0 to 2
 * ```
 */
export function partitionForKey(key: Uint8Array, partitions: number): number {
  return (murmur2(key) & 0x7fffffff) % partitions;
}
