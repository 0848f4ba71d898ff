import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { cleanupInbox, type CleanupOptions } from '../../functions/inbox/cleanup/index.js';
import {
  dataApiDatabase,
  dataApiDatabaseFromEnv,
  untilResumed,
  type DataApiDatabaseFromEnvOptions,
  type DataApiDatabaseOptions,
  type ResumeRetry,
  type ResumeWait,
} from '../../functions/inbox/data-api/index.js';
import { processBatch, processKafkaBatch, sql, type InboxCommonOptions, type Outcome } from '../../functions/inbox/index.js';
import type { KafkaRecord } from '../../functions/inbox/kafka/index.js';
import { resumeRetryOf } from '../../functions/inbox/data-api/options.js';
import { resolveOptions } from '../../functions/inbox/options.js';
import { pgDatabase, type PgDatabaseOptions } from '../../functions/inbox/pg/index.js';
import { sendMessages, type SendMessagesOptions } from '../../functions/inbox/producer/index.js';
import { LOCAL_DATA_API_TARGET, localDataApiClient, localDataApiDatabase, startDataApi, type RunningDataApi, type StartDataApiOptions } from '../../local/data-api/index.js';
import { lambdaContext as localLambdaContext, startEventSource, type LambdaContextInit, type StartEventSourceOptions } from '../../local/event-source/index.js';
import { KafkaLog, startKafkaEventSource, type CreateTopicOptions, type KafkaLogOptions, type ProduceMessage, type StartKafkaEventSourceOptions } from '../../local/kafka/index.js';
import { startPostgres, type StartPostgresOptions } from '../../local/postgres/index.js';
import { createScratchDatabase, type ScratchDatabaseOptions } from '../../local/scratch-database.js';
import { createQueue, localSqsClient, redriveDeadLetters, startSqs, type CreateQueueOptions, type RedriveOptions, type RunningSqs, type StartSqsOptions } from '../../local/sqs/index.js';
import { freshDatabase, type FreshDatabase } from '../support/database.js';
import { deadLetterAll, deadLetterPair, queueArn } from '../support/dead-letters.js';
import { kafkaEvent, kafkaRecord } from '../support/kafka-events.js';
import { seedOrders, orderVersions, uniqueConsumer } from '../support/orders.js';
import { startTestSqs, type TestSqs } from '../support/sqs.js';
import { lambdaContext, sqsEvent, sqsRecord } from '../support/sqs-events.js';

type OptionalKeys<T> = { [K in keyof T]-?: undefined extends T[K] ? K : never }[keyof T];
/** Every optional field of `T` as `undefined`: a field added to `T` later does not compile here until it is added. */
type EveryOptionalUndefined<T> = { readonly [K in OptionalKeys<T>]-?: undefined };

// consumer's default is the deployed name (INBOX_CONSUMER), pinned in consumer-name.test.ts.
const commonUnset: EveryOptionalUndefined<Omit<InboxCommonOptions<unknown>, 'consumer'>> = {
  parse: undefined, key: undefined, requireKeyAttribute: undefined, concurrency: undefined, laneFailure: undefined,
  lockTimeoutMs: undefined, deadlineMarginMs: undefined, maxRetries: undefined, onOutcome: undefined, logger: undefined, metrics: undefined,
};
const INBOX_DEFAULTS = { requireKeyAttribute: false, concurrency: 10, laneFailure: 'lane', lockTimeoutMs: 5000, deadlineMarginMs: 5000, maxRetries: 3 };

const wait = (assertion: () => unknown) => vi.waitFor(assertion, { timeout: 10_000, interval: 10 });
const ship = (orderId: string) => sql`UPDATE orders SET status = 'shipped', version = version + 1 WHERE order_id = ${sql.uuid(orderId)}`;

describe('an option passed as undefined keeps its default, for every public options type', () => {
  let fresh: FreshDatabase;
  let api: RunningDataApi;
  let local: TestSqs;
  const database = () => decodeURIComponent(new URL(fresh.url).pathname.slice(1));

  beforeAll(async () => {
    fresh = await freshDatabase();
    api = await startDataApi({ databaseUrl: fresh.url });
    local = await startTestSqs();
  });
  afterAll(async () => {
    await local?.close();
    await api?.close();
    await fresh?.close();
  });

  describe('the runtime (sqs-inbox and its entry points)', () => {
    it('InboxOptions in both modes: the documented defaults, and a message applied', async () => {
      const db = pgDatabase({ connectionString: fresh.url });
      try {
        const [first, second] = await seedOrders(fresh.pool, 2);
        const consumer = uniqueConsumer('undef');
        const transaction = { consumer, db, ...commonUnset, statement: undefined, handle: async (m: { orderId: string }, { tx }: { tx: { query: typeof db.query } }) => { await tx.query(ship(m.orderId)); } };
        const statement = { consumer, db, ...commonUnset, handle: undefined, statement: (m: { orderId: string }) => ship(m.orderId) };

        expect(resolveOptions(transaction)).toMatchObject(INBOX_DEFAULTS);
        expect(resolveOptions(statement)).toMatchObject(INBOX_DEFAULTS);
        expect(await processBatch(sqsEvent(sqsRecord({ orderId: first })), lambdaContext(), transaction)).toEqual({ batchItemFailures: [] });
        expect(await processBatch(sqsEvent(sqsRecord({ orderId: second })), lambdaContext(), statement)).toEqual({ batchItemFailures: [] });
        expect(await orderVersions(fresh.pool, [first!, second!])).toEqual(new Map([[first, 1], [second, 1]]));
      } finally {
        await db.close();
      }
    });

    it('KafkaInboxOptions: the documented defaults, and a record applied under its header key', async () => {
      const db = pgDatabase({ connectionString: fresh.url });
      try {
        const [orderId] = await seedOrders(fresh.pool, 1);
        const outcomes: Outcome[] = [];
        const options = { consumer: uniqueConsumer('kundef'), db, ...commonUnset, onOutcome: (o: Outcome) => outcomes.push(o), statement: (m: { orderId: string }) => ship(m.orderId) };

        expect(resolveOptions<{ orderId: string }, KafkaRecord>(options)).toMatchObject(INBOX_DEFAULTS);
        await processKafkaBatch(kafkaEvent([kafkaRecord({ orderId }, { headers: { 'idempotency-key': 'k-undef' } })]), lambdaContext(), options);
        expect(outcomes).toMatchObject([{ kind: 'processed', key: 'k-undef' }]);
      } finally {
        await db.close();
      }
    });

    it('PgDatabaseOptions: a pool of 10 connections', async () => {
      const unset: EveryOptionalUndefined<Extract<PgDatabaseOptions, { connectionString: string }>> = { max: undefined };
      const db = pgDatabase({ connectionString: fresh.url, ...unset });
      try {
        const pids = await Promise.all(Array.from({ length: 14 }, () =>
          db.query<{ pid: number }>(sql`SELECT pg_backend_pid() AS pid FROM pg_sleep(0.2)`).then(({ rows }) => rows[0]!.pid)));
        expect(new Set(pids).size).toBe(10);
      } finally {
        await db.close();
      }
    });

    it('DataApiDatabaseOptions and ResumeRetry: 4 tries from 250 ms, up to 2 s each, wait out a short pause', async () => {
      const client = localDataApiClient(api.endpoint);
      const resumeRetry: EveryOptionalUndefined<ResumeRetry> = { attempts: undefined, baseMs: undefined, maxMs: undefined };
      const unset: EveryOptionalUndefined<DataApiDatabaseOptions> = { client: undefined, resumeRetry: undefined };
      try {
        expect(resumeRetryOf({ ...LOCAL_DATA_API_TARGET, database: database(), ...unset, resumeRetry })).toEqual({ attempts: 4, baseMs: 250, maxMs: 2000 });
        const db = dataApiDatabase({ ...LOCAL_DATA_API_TARGET, database: database(), ...unset, client, resumeRetry });
        api.resetStats();
        // Shorter than the default waits (at least 875 ms before the 4th try), long enough to meet the first call.
        api.pause(600);

        expect((await db.query<{ one: number }>(sql`SELECT 1 AS one`)).rows).toEqual([{ one: 1 }]);
        expect(api.stats().errors.DatabaseResumingException).toBeGreaterThan(0);
        // Left out, the default client is made (and ended by close) without any call.
        await dataApiDatabase({ ...LOCAL_DATA_API_TARGET, database: database(), ...unset }).close();
      } finally {
        api.pause(0);
        client.destroy();
      }
    });

    it('DataApiDatabaseFromEnvOptions: the environment is process.env', async () => {
      const client = localDataApiClient(api.endpoint);
      const unset: EveryOptionalUndefined<DataApiDatabaseFromEnvOptions> = { env: undefined, client: undefined, resumeRetry: undefined };
      vi.stubEnv('CLUSTER_ARN', LOCAL_DATA_API_TARGET.resourceArn);
      vi.stubEnv('SECRET_ARN', LOCAL_DATA_API_TARGET.secretArn);
      vi.stubEnv('DATABASE_NAME', database());
      try {
        const db = dataApiDatabaseFromEnv({ ...unset, client });
        expect((await db.query<{ name: string }>(sql`SELECT current_database() AS name`)).rows).toEqual([{ name: database() }]);
      } finally {
        vi.unstubAllEnvs();
        client.destroy();
      }
    });

    it('ResumeWait: against a resuming database, untilResumed stops at the default 10 s margin instead of calling again at once', async () => {
      const client = localDataApiClient(api.endpoint);
      const unset: EveryOptionalUndefined<ResumeWait> = { marginMs: undefined, waitMs: undefined };
      // One try per call, so each attempt of untilResumed is one call the emulator counts.
      const db = localDataApiDatabase(client, database(), { resumeRetry: { attempts: 1 } });
      let attempts = 0;
      api.pause(2000);
      try {
        // 14 s left: after the default 5 s wait only 9 s would be, under the 10 s margin.
        await expect(untilResumed(() => { attempts += 1; return db.query(sql`SELECT 1`); }, { remainingMs: () => 14_000, ...unset })).rejects.toThrow(/resuming/);
        expect(attempts).toBe(1);
      } finally {
        api.pause(0);
        client.destroy();
      }
    });

    it('CleanupOptions: batches of 1000, no deadline', async () => {
      await fresh.pool.query(`INSERT INTO consumed_message (consumer_name, message_id, payload_hash, processed_at)
        SELECT 'cleanup-undef', 'm' || g, 'h', now() - interval '30 days' FROM generate_series(1, 1500) g`);
      const db = pgDatabase({ connectionString: fresh.url });
      const unset: EveryOptionalUndefined<CleanupOptions> = { batchSize: undefined, remainingMs: undefined, marginMs: undefined };
      try {
        expect(await cleanupInbox(db, { retentionMs: 7 * 24 * 3600 * 1000, ...unset })).toEqual({ deleted: 1500, batches: 2, done: true });
      } finally {
        await db.close();
      }
    });

    it('SendMessagesOptions: messages sent with the default retries and batch size', async () => {
      const queueUrl = await local.createQueue(`undef-${Date.now()}`);
      const unset: EveryOptionalUndefined<SendMessagesOptions> = { maxAttempts: undefined, baseDelayMs: undefined, maxDelayMs: undefined, maxBatchBytes: undefined };

      const result = await sendMessages(local.client, queueUrl, [{ body: { n: 1 }, key: 'a' }, { body: { n: 2 }, key: 'b' }], unset);

      expect(result.failed).toEqual([]);
      expect(result.sent.map((sent) => sent.key)).toEqual(['a', 'b']);
    });
  });

  describe('the local stand-ins (sqs-inbox/local)', () => {
    it('StartDataApiOptions: the emulator starts on a free port and serves a transaction', async () => {
      const unset: EveryOptionalUndefined<StartDataApiOptions> = {
        port: undefined, idleTimeoutMs: undefined, statementTimeoutMs: undefined, latencyMs: undefined, secrets: undefined, maxTransactions: undefined,
      };
      const started = await startDataApi({ databaseUrl: fresh.url, ...unset });
      const client = localDataApiClient(started.endpoint);
      try {
        const db = localDataApiDatabase(client, database());
        expect(await db.transaction(async (tx) => (await tx.query<{ one: number }>(sql`SELECT 1 AS one`)).rows)).toEqual([{ one: 1 }]);
        expect(started.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      } finally {
        client.destroy();
        await started.close();
      }
    });

    it('StartSqsOptions: account 000000000000 in us-east-1, on the wall clock', async () => {
      const unset: EveryOptionalUndefined<StartSqsOptions> = { port: undefined, now: undefined, accountId: undefined, region: undefined, faults: undefined, pollIntervalMs: undefined, deduplicationWindowMs: undefined };
      let sqs: RunningSqs | undefined;
      try {
        sqs = await startSqs(unset);
        const client = localSqsClient(sqs.endpoint);
        const { queueUrl } = await createQueue(client, 'undef');
        await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'hello' }));
        const { Messages } = await client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MessageSystemAttributeNames: ['SentTimestamp'] }));
        client.destroy();

        expect(queueUrl).toContain('/000000000000/undef');
        expect(sqs.region).toBe('us-east-1');
        expect(Messages?.map((m) => m.Body)).toEqual(['hello']);
        expect(Math.abs(Number(Messages![0]!.Attributes!.SentTimestamp) - Date.now())).toBeLessThan(60_000);
      } finally {
        await sqs?.close();
      }
    });

    it('CreateQueueOptions: no attributes of its own and no DLQ', async () => {
      const unset: EveryOptionalUndefined<CreateQueueOptions> = { attributes: undefined, deadLetter: undefined };
      const created = await createQueue(local.client, `undef-q-${Date.now()}`, unset);
      expect(Object.keys(created)).toEqual(['queueUrl']);
    });

    it('RedriveOptions: back to the source queue, the task looked at every 250 ms until done', async () => {
      const pair = await deadLetterPair(local, 'undef-redrive');
      await sendMessages(local.client, pair.queueUrl, [{ body: { n: 1 } }, { body: { n: 2 } }, { body: { n: 3 } }]);
      await deadLetterAll(local, pair.queueUrl);
      const dlqArn = await queueArn(local, pair.dlqUrl);
      const unset: EveryOptionalUndefined<RedriveOptions> = { destinationArn: undefined, maxNumberOfMessagesPerSecond: undefined, pollIntervalMs: undefined, timeoutMs: undefined };
      const listed = () => local.sqs.stats().calls.ListMessageMoveTasks ?? 0;

      const before = listed();
      const started = performance.now();
      // One message a second: the task runs about 2 s, in which a 250 ms poll looks about 8 times.
      const result = await redriveDeadLetters(local.client, { sourceArn: dlqArn, ...unset, maxNumberOfMessagesPerSecond: 1 });

      expect(result).toMatchObject({ approximateNumberOfMessagesMoved: 3, approximateNumberOfMessagesToMove: 3 });
      expect(listed() - before).toBeLessThanOrEqual(Math.ceil((performance.now() - started) / 250) + 1);
      // The three are back in the queue: dead-lettered again, they go back at the service's own rate.
      await deadLetterAll(local, pair.queueUrl);
      expect(await redriveDeadLetters(local.client, { sourceArn: dlqArn, ...unset })).toMatchObject({ approximateNumberOfMessagesMoved: 3 });
    });

    it('StartEventSourceOptions: 10 a batch, a 30 s function named local-function, failures reported', async () => {
      const queueUrl = await local.createQueue(`undef-es-${Date.now()}`);
      const seen: { functionName: string; remainingMs: number; records: number }[] = [];
      const unset: EveryOptionalUndefined<StartEventSourceOptions> = {
        batchSize: undefined, maxBatchingWindowMs: undefined, pollers: undefined, functionTimeoutMs: undefined, waitTimeSeconds: undefined,
        reportBatchItemFailures: undefined, functionName: undefined, onBatch: undefined, onError: undefined,
      };
      await sendMessages(local.client, queueUrl, [{ body: { n: 1 } }, { body: { n: 2 } }]);
      const source = await startEventSource({
        client: local.client, queueUrl, ...unset,
        handler: async (event, context) => {
          seen.push({ functionName: context.functionName, remainingMs: context.getRemainingTimeInMillis(), records: event.Records.length });
          return { batchItemFailures: [] };
        },
      });
      try {
        await wait(() => expect(seen.reduce((sum, s) => sum + s.records, 0)).toBe(2));
        expect(seen[0]).toMatchObject({ functionName: 'local-function' });
        expect(seen[0]!.remainingMs).toBeGreaterThan(25_000);
        expect(seen[0]!.remainingMs).toBeLessThanOrEqual(30_000);
      } finally {
        await source.stop();
      }
    });

    it('KafkaLogOptions, CreateTopicOptions and ProduceMessage: an MSK cluster "local" in us-east-1, one partition, records on the wall clock', async () => {
      const logUnset: EveryOptionalUndefined<KafkaLogOptions> = { region: undefined, accountId: undefined, clusterName: undefined, bootstrapServers: undefined, clock: undefined, faults: undefined };
      const topicUnset: EveryOptionalUndefined<CreateTopicOptions> = { partitions: undefined, retentionMs: undefined };
      const messageUnset: EveryOptionalUndefined<ProduceMessage> = { key: undefined, headers: undefined, partition: undefined, timestamp: undefined };
      const log = new KafkaLog(logUnset);
      log.createTopic('orders', topicUnset);

      const produced = await log.produce('orders', { value: 'v', ...messageUnset });

      expect(log.clusterArn).toMatch(/^arn:aws:kafka:us-east-1:000000000000:cluster\/local\//);
      expect(log.bootstrapServers).toBe('127.0.0.1:9092');
      expect(log.partitions('orders')).toBe(1);
      expect(produced).toMatchObject({ partition: 0, offset: 0 });
      expect(Math.abs(produced.timestamp - Date.now())).toBeLessThan(60_000);
    });

    it('StartKafkaEventSourceOptions: an aws:kafka event for a function named local-function, from the start of the topic', async () => {
      const log = new KafkaLog();
      log.createTopic('orders');
      await log.produce('orders', { value: 'before the start' });
      const seen: { eventSource: string; functionName: string; records: number }[] = [];
      const unset: EveryOptionalUndefined<StartKafkaEventSourceOptions> = {
        eventSource: undefined, consumerGroupId: undefined, startingPosition: undefined, batchSize: undefined, maxBatchingWindowMs: undefined,
        pollers: undefined, functionTimeoutMs: undefined, reportBatchItemFailures: undefined, maximumRetryAttempts: undefined,
        onFailureDestination: undefined, retryDelayMs: undefined, functionName: undefined, faults: undefined, onBatch: undefined, onError: undefined,
      };
      const source = startKafkaEventSource({
        log, topic: 'orders', ...unset,
        handler: async (event, context) => {
          seen.push({ eventSource: event.eventSource, functionName: context.functionName, records: Object.values(event.records).flat().length });
          return { batchItemFailures: [] };
        },
      });
      try {
        await wait(() => expect(seen).toEqual([{ eventSource: 'aws:kafka', functionName: 'local-function', records: 1 }]));
      } finally {
        await source.stop();
      }
    });

    it('StartPostgresOptions: the server of DATABASE_URL, when it is set', async () => {
      const unset: EveryOptionalUndefined<StartPostgresOptions> = { databaseUrl: undefined, log: undefined, attempts: undefined };
      vi.stubEnv('DATABASE_URL', inject('pgAdminUrl'));
      try {
        const postgres = await startPostgres(unset);
        expect(postgres).toMatchObject({ url: inject('pgAdminUrl'), embedded: false });
        await postgres.close();
      } finally {
        vi.unstubAllEnvs();
      }
    });

    it('ScratchDatabaseOptions: an empty database, copied from template1', async () => {
      const unset: EveryOptionalUndefined<ScratchDatabaseOptions> = { template: undefined };
      const scratch = await createScratchDatabase(inject('pgAdminUrl'), 'undef', unset);
      try {
        const db = pgDatabase({ connectionString: scratch.url });
        const { rows } = await db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'consumed_message'`);
        await db.close();
        expect(rows).toEqual([{ n: 0 }]);
      } finally {
        await scratch.drop();
      }
    });

    it('LambdaContextInit: 128 MB', () => {
      const unset: EveryOptionalUndefined<LambdaContextInit> = { memoryLimitInMB: undefined };
      expect(localLambdaContext({ functionName: 'f', timeoutMs: 1000, region: 'us-east-1', accountId: '000000000000', ...unset }).memoryLimitInMB).toBe('128');
    });
  });
});
