import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { Context } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { LocalConfigError } from '../../local/errors.js';
import { InjectedCrashError } from '../../demo/crashing-handler.js';
import {
  KafkaLog,
  startKafkaEventSource,
  toKafkaEventRecord,
  type KafkaBatchReport,
  type KafkaEvent,
  type KafkaHandler,
  type RunningKafkaEventSource,
  type StartKafkaEventSourceOptions,
} from '../../local/kafka/index.js';
import { eventRecords, kafkaFailures, recordValue } from '../support/kafka-events.js';
import { queueName, startTestSqs, type TestSqs } from '../support/sqs.js';

const running: RunningKafkaEventSource[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((source) => source.stop()));
});

/** A log with the topic `orders` of `partitions` partitions. */
function ordersLog(partitions = 1): KafkaLog {
  const log = new KafkaLog();
  log.createTopic('orders', { partitions });
  return log;
}

async function produce(log: KafkaLog, partition: number, values: string[]): Promise<void> {
  for (const value of values) await log.produce('orders', { value, partition, key: `key-${value}` });
}

/** An event source on `orders` that invokes at once and retries at once, stopped after each test. */
function poll(log: KafkaLog, handler: KafkaHandler, options: Partial<StartKafkaEventSourceOptions> = {}): RunningKafkaEventSource {
  const source = startKafkaEventSource({ log, topic: 'orders', handler, maxBatchingWindowMs: 0, retryDelayMs: 0, ...options });
  running.push(source);
  return source;
}

/** Per '<topic>-<partition>' of an event, the offsets it holds. */
function offsetsOf(event: KafkaEvent): Record<string, number[]> {
  return Object.fromEntries(Object.entries(event.records).map(([key, records]) => [key, records.map((record) => record.offset)]));
}

/** A handler that records every event and context it is given and answers what `respond` says. */
function recording(respond: (event: KafkaEvent, call: number) => unknown = () => undefined) {
  const calls: KafkaEvent[] = [];
  const contexts: Context[] = [];
  const handler: KafkaHandler = async (event, context) => {
    calls.push(event);
    contexts.push(context);
    return respond(event, calls.length);
  };
  return { handler, calls, contexts, offsets: () => calls.map(offsetsOf) };
}

// The pollers run in real time: wait for what they do, generously, since the whole suite shares two cores.
const eventually = (assertion: () => unknown) => vi.waitFor(assertion, { timeout: 10_000, interval: 10 });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const base64 = (text: string) => Buffer.from(text).toString('base64');

describe('the event and the context are what Lambda hands a function', () => {
  it('builds an aws:kafka event: records under <topic>-<partition>, base64 key and value, headers as signed Java bytes', async () => {
    const log = ordersLog(2);
    await log.produce('orders', { key: 'order-1', value: '{"orderId":"o-1"}', headers: { 'idempotency-key': 'Zürich-1', raw: new Uint8Array([0, 127, 128, 255]) }, partition: 1, timestamp: 1_700_000_000_000 });
    await log.produce('orders', { value: 'no key', partition: 1, timestamp: 1_700_000_000_001 });
    const { handler, calls } = recording();
    poll(log, handler);
    await eventually(() => expect(calls).toHaveLength(1));

    expect(calls[0]).toEqual({
      eventSource: 'aws:kafka',
      eventSourceArn: log.clusterArn,
      bootstrapServers: '127.0.0.1:9092',
      records: {
        'orders-1': [
          {
            topic: 'orders', partition: 1, offset: 0, timestamp: 1_700_000_000_000, timestampType: 'CREATE_TIME',
            key: base64('order-1'), value: base64('{"orderId":"o-1"}'), headers: [{ 'idempotency-key': [90, -61, -68, 114, 105, 99, 104, 45, 49] }, { raw: [0, 127, -128, -1] }],
          },
          { topic: 'orders', partition: 1, offset: 1, timestamp: 1_700_000_000_001, timestampType: 'CREATE_TIME', value: base64('no key'), headers: [] },
        ],
      },
    });
    expect(Object.keys(calls[0]!.records['orders-1']![1]!)).not.toContain('key');
    expect(log.clusterArn).toMatch(/^arn:aws:kafka:us-east-1:000000000000:cluster\/local\/[0-9a-f-]{36}-1$/);
  });

  it('builds a SelfManagedKafka event without a cluster ARN', async () => {
    const log = ordersLog();
    await produce(log, 0, ['a']);
    const { handler, calls } = recording();
    poll(log, handler, { eventSource: 'SelfManagedKafka' });
    await eventually(() => expect(calls).toHaveLength(1));
    expect(Object.keys(calls[0]!)).toEqual(['eventSource', 'bootstrapServers', 'records']);
    expect(calls[0]!.eventSource).toBe('SelfManagedKafka');
  });

  it('hands a Lambda-like context whose remaining time counts down from the function timeout', async () => {
    const log = ordersLog();
    await produce(log, 0, ['a']);
    const { handler, contexts } = recording();
    poll(log, handler, { functionTimeoutMs: 5_000, functionName: 'order-worker' });
    await eventually(() => expect(contexts).toHaveLength(1));
    expect(contexts[0]).toMatchObject({
      functionName: 'order-worker',
      invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:order-worker',
      awsRequestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(contexts[0]!.getRemainingTimeInMillis()).toBeLessThanOrEqual(5_000);
  });

  it('refuses settings Lambda refuses, saying which', () => {
    const log = ordersLog();
    const handler = async () => undefined;
    expect(() => startKafkaEventSource({ log, topic: 'missing', handler })).toThrow(/Topic "missing" does not exist/);
    expect(() => startKafkaEventSource({ log, topic: 'orders', handler, batchSize: 10_001 })).toThrow(/batchSize must be a whole number from 1 to 10000, but 10001/);
    expect(() => startKafkaEventSource({ log, topic: 'orders', handler, functionTimeoutMs: 900_000 })).toThrow(LocalConfigError);
    expect(() => startKafkaEventSource({ log, topic: 'orders', handler, onFailureDestination: { type: 'kafka', topic: 'orders' } })).toThrow(/cannot be the source topic/);
  });
});

describe('batches are gathered per partition, in offset order', () => {
  it('fills a batch up to batchSize from several partitions, then takes the next partitions in turn', async () => {
    const log = ordersLog(3);
    for (const partition of [0, 1, 2]) await produce(log, partition, [`p${partition}a`, `p${partition}b`]);
    const { handler, offsets } = recording();
    const source = poll(log, handler, { batchSize: 4 });
    await eventually(() => expect(source.stats.committedRecords).toBe(6));

    expect(offsets()).toEqual([{ 'orders-0': [0, 1], 'orders-1': [0, 1] }, { 'orders-2': [0, 1] }]);
    expect(source.committedOffsets()).toEqual({ 'orders-0': 2, 'orders-1': 2, 'orders-2': 2 });
    expect(source.stats).toMatchObject({ invocations: 2, records: 6, redelivered: 0, committedRecords: 6 });
    expect(source.lag()).toBe(0);
  });

  it('waits up to the batching window for a fuller batch, and invokes as soon as it is full', async () => {
    const log = ordersLog();
    await produce(log, 0, ['a']);
    const { handler, offsets } = recording();
    const started = performance.now();
    poll(log, handler, { batchSize: 3, maxBatchingWindowMs: 5_000 });
    await sleep(50);
    await produce(log, 0, ['b', 'c']);
    await eventually(() => expect(offsets()).toEqual([{ 'orders-0': [0, 1, 2] }]));
    expect(performance.now() - started).toBeLessThan(4_000);
  });

  it.each([
    [2, 3, 2],
    [3, 3, 3],
    [5, 2, 2],
  ])('with %i pollers and %i partitions, never has a partition in two invocations at once, and runs %i at once', async (pollers, partitions, concurrent) => {
    const log = ordersLog(partitions);
    for (let partition = 0; partition < partitions; partition += 1) await produce(log, partition, ['1', '2', '3', '4', '5', '6'].map((n) => `p${partition}-${n}`));
    const busy = new Set<string>();
    const overlaps: string[] = [];
    let inFlight = 0;
    let most = 0;
    const seen: string[][] = [];
    const source = poll(log, async (event) => {
      const keys = Object.keys(event.records);
      seen.push(keys);
      for (const key of keys) {
        if (busy.has(key)) overlaps.push(key);
        busy.add(key);
      }
      inFlight += 1;
      most = Math.max(most, inFlight);
      await sleep(30);
      inFlight -= 1;
      for (const key of keys) busy.delete(key);
    }, { pollers, batchSize: 2 });
    await eventually(() => expect(source.stats.committedRecords).toBe(partitions * 6));

    expect(overlaps).toEqual([]);
    expect(most).toBe(concurrent);
    // Each poller owns the partitions p % pollers: a batch never mixes partitions of two pollers.
    // Batches of 2 over 6 records a partition: at least 3 invocations a partition to look at.
    expect(seen.length).toBeGreaterThanOrEqual(partitions * 3);
    for (const keys of seen) expect(new Set(keys.map((key) => Number(key.split('-')[1]) % pollers)).size).toBe(1);
  });

  it('hands each partition\'s records in offset order, once each, so a key\'s records arrive in the order produced', async () => {
    const log = ordersLog(3);
    const produced = Array.from({ length: 30 }, (_, i) => ({ key: `k${i % 5}`, value: `k${i % 5}:${i}` }));
    for (const message of produced) await log.produce('orders', message);
    const { handler, calls } = recording();
    const source = poll(log, handler, { pollers: 3, batchSize: 4 });
    await eventually(() => expect(source.stats.committedRecords).toBe(30));

    const byPartition = new Map<string, number[]>();
    const byKey = new Map<string, string[]>();
    for (const [key, records] of calls.flatMap((event) => Object.entries(event.records))) {
      byPartition.set(key, [...(byPartition.get(key) ?? []), ...records.map((record) => record.offset)]);
      for (const record of records) {
        const value = recordValue(record);
        const messageKey = value.split(':')[0]!;
        byKey.set(messageKey, [...(byKey.get(messageKey) ?? []), value]);
      }
    }
    expect([...byPartition.values()].flat()).toHaveLength(30);
    for (const [key, seen] of byPartition) expect(seen).toEqual(Array.from({ length: log.offsets('orders', Number(key.split('-')[1])).end }, (_, i) => i));
    for (const [key, values] of byKey) expect(values).toEqual(produced.filter((message) => message.key === key).map((message) => message.value));
    expect([...byKey.values()].flat()).toHaveLength(30);
  });
});

describe('the consumer group\'s committed offsets', () => {
  it('let a later event source of the same group continue where the first stopped; LATEST skips what came before', async () => {
    const log = ordersLog();
    await produce(log, 0, ['a', 'b']);
    const first = recording();
    const one = poll(log, first.handler, { consumerGroupId: 'orders-worker' });
    await eventually(() => expect(one.committedOffsets()).toEqual({ 'orders-0': 2 }));
    await one.stop();
    await produce(log, 0, ['c']);

    const second = recording();
    poll(log, second.handler, { consumerGroupId: 'orders-worker' });
    const latest = recording();
    const fromNow = poll(log, latest.handler, { startingPosition: 'LATEST' });
    await eventually(() => expect(second.offsets()).toEqual([{ 'orders-0': [2] }]));
    expect(fromNow.lag()).toBe(0);
    await produce(log, 0, ['d']);
    await eventually(() => expect(latest.offsets()).toEqual([{ 'orders-0': [3] }]));
  });
});

describe('a partial batch response commits up to the lowest failed offset of each partition, which comes again', () => {
  it('resumes a partition from the lowest offset named, and commits the partitions not named', async () => {
    const log = ordersLog(2);
    await produce(log, 0, ['a', 'b', 'c', 'd', 'e', 'f']);
    await produce(log, 1, ['x', 'y']);
    const reports: KafkaBatchReport[] = [];
    const { handler, offsets } = recording((event, call) => {
      if (call > 1) return { batchItemFailures: [] };
      const zero = event.records['orders-0']!;
      return kafkaFailures(zero[4]!, zero[2]!);
    });
    const source = poll(log, handler, { onBatch: (report) => reports.push(report) });
    await eventually(() => expect(source.committedOffsets()).toEqual({ 'orders-0': 6, 'orders-1': 2 }));

    expect(offsets()).toEqual([{ 'orders-0': [0, 1, 2, 3, 4, 5], 'orders-1': [0, 1] }, { 'orders-0': [2, 3, 4, 5] }]);
    expect(reports.map((report) => report.committed)).toEqual([{ 'orders-0': 2, 'orders-1': 2 }, { 'orders-0': 6 }]);
    expect(reports.map((report) => report.attempt)).toEqual([1, 2]);
    expect(source.stats).toMatchObject({ invocations: 2, partialBatches: 1, records: 12, redelivered: 4, committedRecords: 8 });
  });

  it('ignores batchItemFailures without reportBatchItemFailures, as the mapping does', async () => {
    const log = ordersLog();
    await produce(log, 0, ['a', 'b', 'c']);
    const { handler, calls } = recording((event) => kafkaFailures(...eventRecords(event)));
    const source = poll(log, handler, { reportBatchItemFailures: false });
    await eventually(() => expect(source.committedOffsets()).toEqual({ 'orders-0': 3 }));
    expect(calls).toHaveLength(1);
  });
});

describe('a thrown error, a timeout or an invalid response retries the whole batch', () => {
  it.each([
    ['a thrown error', 'errors', {}, async () => {
      throw new Error('database down');
    }],
    ['a timeout', 'timeouts', { functionTimeoutMs: 100 }, () => sleep(400)],
    ['an offset sent as a string', 'invalidResponses', {}, () => ({ batchItemFailures: [{ itemIdentifier: { partition: 'orders-0', offset: '1' } }] })],
    ['an identifier naming a record not in the batch', 'invalidResponses', {}, () => ({ batchItemFailures: [{ itemIdentifier: { partition: 'orders-0', offset: 3 } }] })],
    ['an SQS-style identifier', 'invalidResponses', {}, () => ({ batchItemFailures: [{ itemIdentifier: 'orders-0:1' }] })],
  ] as const)('for %s', async (_case, counter, options, first) => {
    const log = ordersLog();
    await produce(log, 0, ['a', 'b', 'c']);
    const reports: KafkaBatchReport[] = [];
    const { handler, offsets } = recording((event, call) => (call === 1 ? first() : undefined));
    const source = poll(log, handler, { ...options, onBatch: (report) => reports.push(report) });
    await eventually(() => expect(source.committedOffsets()).toEqual({ 'orders-0': 3 }));

    expect(offsets()).toEqual([{ 'orders-0': [0, 1, 2] }, { 'orders-0': [0, 1, 2] }]);
    expect(reports.map((report) => [report.result.outcome, report.committed, report.attempt])).toEqual([['failed', { 'orders-0': 0 }, 1], ['succeeded', { 'orders-0': 3 }, 2]]);
    expect(source.stats[counter]).toBe(1);
    expect(source.stats.redelivered).toBe(3);
  });
});

describe('a position that keeps failing is given up after its retries, to the on-failure destination', () => {
  let local: TestSqs;

  beforeAll(async () => {
    local = await startTestSqs();
  });

  afterAll(async () => {
    await local.close();
  });

  it('sends a record named failed past maximumRetryAttempts to an SQS destination, with Lambda\'s metadata, and moves on', async () => {
    const queueUrl = await local.createQueue(queueName('kafka-failures'));
    const log = ordersLog();
    await produce(log, 0, ['a', 'poison', 'c', 'd']);
    const { handler, offsets, contexts } = recording((event) => {
      const poison = event.records['orders-0']!.find((record) => recordValue(record) === 'poison');
      return poison === undefined ? undefined : kafkaFailures(poison);
    });
    const source = poll(log, handler, { maximumRetryAttempts: 2, onFailureDestination: { type: 'sqs', client: local.client, queueUrl } });
    await eventually(() => expect(source.committedOffsets()).toEqual({ 'orders-0': 4 }));

    expect(offsets()).toEqual([{ 'orders-0': [0, 1, 2, 3] }, { 'orders-0': [1, 2, 3] }, { 'orders-0': [1, 2, 3] }, { 'orders-0': [2, 3] }]);
    expect(source.stats).toMatchObject({ discarded: 1, committedRecords: 3, partialBatches: 3 });
    expect(source.discarded.map((discarded) => discarded.records.map((record) => record.offset))).toEqual([[1]]);
    const { Messages } = await local.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }));
    expect(Messages).toHaveLength(1);
    const poisonTimestamp = new Date(log.read('orders', 0, 1, 1)[0]!.timestamp).toISOString();
    expect(JSON.parse(Messages![0]!.Body!)).toEqual({
      requestContext: {
        requestId: contexts[2]!.awsRequestId,
        functionArn: 'arn:aws:lambda:us-east-1:000000000000:function:local-function',
        condition: 'RetryAttemptsExhausted',
        approximateInvokeCount: 3,
      },
      responseContext: { statusCode: 200, executedVersion: '$LATEST' },
      version: '1.0',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      KafkaBatchInfo: {
        batchSize: 1,
        eventSourceArn: log.clusterArn,
        bootstrapServers: '127.0.0.1:9092',
        payloadSize: expect.any(Number),
        recordsInfo: { 'orders-0': { firstRecordOffset: '1', lastRecordOffset: '1', firstRecordTimestamp: poisonTimestamp, lastRecordTimestamp: poisonTimestamp } },
      },
    });
  });

  it('keeps records a destination refuses, and gives them up again on the next failure', async () => {
    const log = ordersLog();
    await produce(log, 0, ['a']);
    const errors: unknown[] = [];
    const source = poll(log, async () => {
      throw new Error('always');
    }, {
      maximumRetryAttempts: 0,
      onFailureDestination: { type: 'sqs', client: local.client, queueUrl: `${local.sqs.endpoint}/000000000000/no-such-queue` },
      onError: (error) => errors.push(error),
    });
    await eventually(() => expect(source.stats.destinationFailures).toBeGreaterThanOrEqual(2));
    expect(source.committedOffsets()).toEqual({});
    expect(source.stats.discarded).toBe(0);
    expect(errors[0]).toMatchObject({ name: 'QueueDoesNotExist' });
  });

  it('gives up a whole batch that keeps throwing to a Kafka topic, one message per record under its key', async () => {
    const log = ordersLog();
    log.createTopic('orders-failed', { partitions: 2 });
    await produce(log, 0, ['a', 'b']);
    const { handler, offsets } = recording(() => {
      throw new Error('always');
    });
    const source = poll(log, handler, { maximumRetryAttempts: 1, onFailureDestination: { type: 'kafka', topic: 'orders-failed' } });
    await eventually(() => expect(source.stats.discarded).toBe(2));

    expect(offsets()).toEqual([{ 'orders-0': [0, 1] }, { 'orders-0': [0, 1] }]);
    expect(source.committedOffsets()).toEqual({ 'orders-0': 2 });
    const originals = log.read('orders', 0, 0, 2);
    const failed = [0, 1].flatMap((partition) => log.read('orders-failed', partition, 0, 10));
    expect(failed.map((record) => record.key?.toString()).sort()).toEqual(['key-a', 'key-b']);
    for (const message of failed) {
      const original = originals.find((record) => record.key!.equals(message.key!))!;
      expect(JSON.parse(message.value.toString())).toMatchObject({
        requestContext: { condition: 'RetriesExhausted', approximateInvokeCount: 2, functionArn: 'arn:aws:lambda:us-east-1:000000000000:function:local-function:$LATEST' },
        responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
        KafkaBatchInfo: { batchSize: 1, eventSourceArn: log.clusterArn, recordInfo: { offset: String(original.offset), timestamp: new Date(original.timestamp).toISOString() } },
        payload: { eventSource: 'aws:kafka', eventSourceArn: log.clusterArn, records: { 'orders-0': [toKafkaEventRecord(original)] } },
      });
    }
  });

  it('retries 10 times when retries are infinite and a destination is set, as Lambda does', async () => {
    const log = ordersLog();
    log.createTopic('orders-failed');
    await produce(log, 0, ['a']);
    const { handler, calls } = recording(() => {
      throw new Error('always');
    });
    const source = poll(log, handler, { onFailureDestination: { type: 'kafka', topic: 'orders-failed' } });
    await eventually(() => expect(source.stats.discarded).toBe(1));
    expect(calls).toHaveLength(11);
    expect(source.discarded[0]!.approximateInvokeCount).toBe(11);
  });

  it('without a destination, lists what it gave up; with infinite retries and none, never gives up', async () => {
    const limited = ordersLog();
    await produce(limited, 0, ['a']);
    const finite = poll(limited, async () => {
      throw new Error('always');
    }, { maximumRetryAttempts: 0 });
    await eventually(() => expect(finite.committedOffsets()).toEqual({ 'orders-0': 1 }));
    expect(finite.discarded.map((discarded) => [discarded.condition, discarded.records.map((record) => record.value.toString()), discarded.functionError]))
      .toEqual([['RetryAttemptsExhausted', ['a'], true]]);

    const endless = ordersLog();
    await produce(endless, 0, ['a']);
    const { handler, calls } = recording(() => {
      throw new Error('always');
    });
    const forever = poll(endless, handler);
    await eventually(() => expect(calls.length).toBeGreaterThanOrEqual(15));
    expect(forever.stats.discarded).toBe(0);
    expect(forever.committedOffsets()).toEqual({});
  });
});

describe('faults: lost responses, crashes and double deliveries bring records again', () => {
  /** An in-memory consumer with no idempotency: it counts how often each value was applied. */
  function naive(decide: (event: KafkaEvent, call: number, applied: Map<string, number>) => unknown = () => undefined) {
    const applied = new Map<string, number>();
    let calls = 0;
    const handler: KafkaHandler = async (event) => {
      calls += 1;
      return decide(event, calls, applied);
    };
    const apply = (value: string) => applied.set(value, (applied.get(value) ?? 0) + 1);
    return { handler, applied, apply };
  }

  it('a lost response: the handler did its work, Lambda never heard, and the whole batch comes again', async () => {
    const log = ordersLog();
    await produce(log, 0, ['a', 'b', 'c']);
    const attempts: number[] = [];
    const consumer = naive((event) => {
      for (const record of eventRecords(event)) consumer.apply(recordValue(record));
    });
    const source = poll(log, consumer.handler, { faults: { loseResponse: (batch) => { attempts.push(batch.attempt); return batch.attempt === 1; } } });
    await eventually(() => expect(source.committedOffsets()).toEqual({ 'orders-0': 3 }));

    expect(Object.fromEntries(consumer.applied)).toEqual({ a: 2, b: 2, c: 2 });
    expect(attempts).toEqual([1, 2]);
    expect(source.stats).toMatchObject({ invocations: 2, lostResponses: 1, redelivered: 3, committedRecords: 3 });
  });

  it('an invocation that dies after committing part of its work is retried whole, from the batch\'s first offset', async () => {
    const log = ordersLog();
    await produce(log, 0, ['a', 'b', 'c']);
    const consumer = naive((event, call) => {
      for (const [index, record] of eventRecords(event).entries()) {
        consumer.apply(recordValue(record));
        if (call === 1 && index === 1) throw new InjectedCrashError({ when: 'after-commit', at: 2 });
      }
    });
    const source = poll(log, consumer.handler);
    await eventually(() => expect(source.committedOffsets()).toEqual({ 'orders-0': 3 }));
    expect(Object.fromEntries(consumer.applied)).toEqual({ a: 2, b: 2, c: 1 });
    expect(source.stats.errors).toBe(1);
  });

  it('a double delivery hands the same records to two invocations at once; the batch is committed once', async () => {
    const log = ordersLog();
    await produce(log, 0, ['a', 'b', 'c']);
    let inFlight = 0;
    let most = 0;
    const { handler, offsets, contexts } = recording(async () => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await sleep(50);
      inFlight -= 1;
    });
    const source = poll(log, handler, { faults: { deliverTwice: (batch) => batch.attempt === 1 && batch.records[0]!.offset === 0 } });
    await eventually(() => expect(source.committedOffsets()).toEqual({ 'orders-0': 3 }));

    expect(offsets()).toEqual([{ 'orders-0': [0, 1, 2] }, { 'orders-0': [0, 1, 2] }]);
    expect(most).toBe(2);
    expect(contexts[0]!.awsRequestId).not.toBe(contexts[1]!.awsRequestId);
    expect(source.stats).toMatchObject({ invocations: 2, records: 6, redelivered: 3, doubleDeliveries: 1, fencedCommits: 1, committedRecords: 3 });
  });

  it('after a double delivery the second invocation\'s answer counts, as the partition\'s new owner', async () => {
    const log = ordersLog();
    await produce(log, 0, ['a', 'b', 'c']);
    const { handler, offsets } = recording((event, call) => (call === 2 ? kafkaFailures(event.records['orders-0']![1]!) : undefined));
    const source = poll(log, handler, { faults: { deliverTwice: (batch) => batch.attempt === 1 && batch.records[0]!.offset === 0 } });
    await eventually(() => expect(source.stats.invocations).toBe(3));
    await eventually(() => expect(source.committedOffsets()).toEqual({ 'orders-0': 3 }));

    expect(offsets()).toEqual([{ 'orders-0': [0, 1, 2] }, { 'orders-0': [0, 1, 2] }, { 'orders-0': [1, 2] }]);
    expect(source.stats).toMatchObject({ fencedCommits: 1, partialBatches: 1 });
  });
});
