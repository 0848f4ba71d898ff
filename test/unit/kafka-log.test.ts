import { describe, expect, it } from 'vitest';
import { LocalConfigError } from '../../local/errors.js';
import { KafkaLog, KafkaLogError, ProduceAckLostError, RecordTooLargeError, UnknownTopicOrPartitionError, partitionForKey } from '../../local/kafka/index.js';
import { murmur2 } from '../../local/kafka/partitioner.js';

function logWithTopic(partitions = 3, options: ConstructorParameters<typeof KafkaLog>[0] = {}): KafkaLog {
  const log = new KafkaLog(options);
  log.createTopic('orders', { partitions });
  return log;
}

describe('keys are partitioned as Kafka\'s default partitioner does', () => {
  it.each([
    // Apache Kafka's UtilsTest.testMurmur2 vectors: the same hashes as the Java client.
    ['21', -973932308],
    ['foobar', -790332482],
    ['a-little-bit-long-string', -985981536],
    ['a-little-bit-longer-string', -1486304829],
    ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
    ['abc', 479470107],
  ])('murmur2(%j) is %i', (key, hash) => {
    expect(murmur2(Buffer.from(key))).toBe(hash);
  });

  it('sends a key to toPositive(murmur2) % partitions, every time', async () => {
    const log = logWithTopic(5);
    const placed = await Promise.all(['21', 'foobar', 'abc', '21'].map((key) => log.produce('orders', { key, value: key })));
    // toPositive(-973932308) = 1173551340, % 5 = 0; foobar: 1357151166 % 5 = 1; abc: 479470107 % 5 = 2.
    expect(placed.map((record) => [record.partition, record.offset])).toEqual([[0, 0], [1, 0], [2, 0], [0, 1]]);
    expect(partitionForKey(Buffer.from('21'), 7)).toBe(3);
  });

  it('sends keyless records to the partitions in turn, and an explicit partition wins over the key', async () => {
    const log = logWithTopic(3);
    const keyless = await Promise.all([1, 2, 3, 4].map((n) => log.produce('orders', { value: `v${n}` })));
    const pinned = await log.produce('orders', { key: '21', value: 'pinned', partition: 2 });
    expect(keyless.map((record) => record.partition)).toEqual([0, 1, 2, 0]);
    expect(pinned).toMatchObject({ partition: 2, offset: 1 });
  });
});

describe('a partition is an ordered log with offsets and timestamps', () => {
  it('stores key, value and headers as bytes, with offsets from 0 and the producer\'s or the clock\'s timestamp', async () => {
    let now = 1_700_000_000_000;
    const log = logWithTopic(1, { clock: () => now });
    await log.produce('orders', { key: 'k', value: 'first', headers: { 'idempotency-key': 'ship-1', raw: new Uint8Array([0, 255]) } });
    now += 5;
    await log.produce('orders', { value: new Uint8Array([1, 2]), timestamp: 42 });

    const [first, second] = log.read('orders', 0, 0, 10);
    expect(first).toMatchObject({ topic: 'orders', partition: 0, offset: 0, timestamp: 1_700_000_000_000 });
    expect(first!.key?.toString()).toBe('k');
    expect(first!.value.toString()).toBe('first');
    expect(first!.headers.map(([name, value]) => [name, [...value]])).toEqual([['idempotency-key', [...Buffer.from('ship-1')]], ['raw', [0, 255]]]);
    expect(second).toMatchObject({ offset: 1, timestamp: 42, key: undefined });
    expect(log.read('orders', 0, 1, 10).map((record) => record.offset)).toEqual([1]);
    expect(log.offsets('orders', 0)).toEqual({ start: 0, end: 2 });
    expect(log.stats.produced).toBe(2);
  });

  it('keeps each consumer group\'s committed offset per partition', () => {
    const log = logWithTopic(2);
    log.commit('group-a', 'orders', 1, 5);
    expect(log.committed('group-a', 'orders', 1)).toBe(5);
    expect(log.committed('group-a', 'orders', 0)).toBeUndefined();
    expect(log.committed('group-b', 'orders', 1)).toBeUndefined();
    expect(() => log.commit('group-a', 'orders', 0, -1)).toThrow(KafkaLogError);
  });

  it('drops records older than the topic\'s retention from the head, offsets unchanged', async () => {
    let now = 0;
    const log = new KafkaLog({ clock: () => now });
    log.createTopic('short', { retentionMs: 1000 });
    await log.produce('short', { value: 'old' });
    now = 600;
    await log.produce('short', { value: 'newer' });
    now = 1200;
    expect(log.offsets('short', 0)).toEqual({ start: 1, end: 2 });
    expect(log.read('short', 0, 0, 10).map((record) => record.value.toString())).toEqual(['newer']);
    expect(log.stats.expired).toBe(1);
  });

  it('wakes a waiting reader at the next append', async () => {
    const log = logWithTopic(1);
    const started = performance.now();
    const waiting = log.waitForRecords('orders', 5000);
    await log.produce('orders', { value: 'x' });
    await waiting;
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('bad input gets a named error, and nothing is stored', () => {
  it('refuses an unknown topic or partition', async () => {
    const log = logWithTopic(2);
    await expect(log.produce('nope', { value: 'x' })).rejects.toBeInstanceOf(UnknownTopicOrPartitionError);
    await expect(log.produce('orders', { value: 'x', partition: 2 })).rejects.toThrow(/has no partition 2/);
    expect(() => log.read('orders', 1.5, 0, 1)).toThrow(UnknownTopicOrPartitionError);
    expect(log.stats.produced).toBe(0);
  });

  it('refuses a record over the broker\'s size limit and a value that is not text or bytes', async () => {
    const log = logWithTopic(1);
    await expect(log.produce('orders', { value: Buffer.alloc(1_048_589) })).rejects.toBeInstanceOf(RecordTooLargeError);
    await expect(log.produce('orders', { value: { orderId: 1 } as unknown as string })).rejects.toThrow(/value must be a string or bytes/);
    expect(log.offsets('orders', 0).end).toBe(0);
  });

  it('refuses headers that are not one { name: value } record, saying what one is, with an example', async () => {
    const log = logWithTopic(1);
    const shape = "headers are one { name: value } record, each value a string or bytes, for example { 'idempotency-key': 'ship-order-1', source: 'web' }";
    const asLambdaListsThem = [{ 'idempotency-key': 'ship-1' }] as unknown as Record<string, string>;
    await expect(log.produce('orders', { value: 'x', headers: asLambdaListsThem }))
      .rejects.toThrow(`${shape}, but a list was given (Lambda's event lists headers; a producer does not).`);
    await expect(log.produce('orders', { value: 'x', headers: { 'idempotency-key': { value: 'ship-1' } as unknown as string } }))
      .rejects.toThrow(`header idempotency-key must be a string or bytes (Uint8Array), but object was given: ${shape}.`);
    await expect(log.produce('orders', { value: 'x', headers: 'idempotency-key=ship-1' as unknown as Record<string, string> }))
      .rejects.toThrow(`${shape}, but string was given.`);
    expect(log.offsets('orders', 0).end).toBe(0);
  });

  it('refuses a bad topic definition', () => {
    const log = logWithTopic(1);
    expect(() => log.createTopic('orders')).toThrow(/exists already/);
    expect(() => log.createTopic('bad name')).toThrow(LocalConfigError);
    expect(() => log.createTopic('zero', { partitions: 0 })).toThrow(/partitions must be a whole number from 1 to 1000, but 0/);
  });
});

describe('a lost produce acknowledgement', () => {
  it('stores the record but rejects, so a producer that retries stores it twice', async () => {
    let lose = true;
    const log = logWithTopic(1, { faults: { loseProduceAck: () => lose } });
    const send = async () => {
      for (;;) {
        try {
          return await log.produce('orders', { key: 'order-1', value: 'ship' });
        } catch (error) {
          if (!(error instanceof ProduceAckLostError)) throw error;
          lose = false;
        }
      }
    };
    expect(await send()).toMatchObject({ offset: 1 });
    expect(log.read('orders', 0, 0, 10).map((record) => [record.offset, record.value.toString()])).toEqual([[0, 'ship'], [1, 'ship']]);
    expect(log.stats).toMatchObject({ produced: 2, lostAcks: 1 });
  });
});
