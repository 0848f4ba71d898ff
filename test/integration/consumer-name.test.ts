import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { INBOX_ENV } from '../../functions/inbox/contract.js';
import { InboxConfigError, processBatch, type MessageContext } from '../../functions/inbox/index.js';
import { inbox } from '../../functions/inbox/middleware/index.js';
import type { Publisher, RelayReport } from '../../functions/inbox/outbox/index.js';
import { pgDatabase } from '../../functions/inbox/pg/index.js';
import { LOCAL_DATA_API_TARGET, startDataApi, type RunningDataApi } from '../../local/data-api/index.js';
import '../support/cdk-assemblies.js';
import { freshDatabase, type FreshDatabase } from '../support/database.js';
import { inboxRows } from '../support/orders.js';
import { ageOutbox, drainMessages, keyAttribute, outboxRows } from '../support/outbox.js';
import { queueName, startTestSqs, type TestSqs } from '../support/sqs.js';
import { lambdaContext, sqsEvent, sqsRecord } from '../support/sqs-events.js';
import { outboxConsumer } from '../infra/outbox-fixture.js';

type Resource = { Type: string; Properties: { Description?: string; Environment?: { Variables?: Record<string, unknown> } } };

/** The string variables the construct gives its consumer function and its relay, by description. */
function deployedEnvironments(): { consumer: Record<string, string>; relay: Record<string, string> } {
  const { template } = outboxConsumer('InboxConsumer', (set) => ({ outbox: { targets: { shipped: set.sealed } } }));
  const functions = Object.values(template.toJSON().Resources as Record<string, Resource>).filter((r) => r.Type === 'AWS::Lambda::Function');
  const envOf = (description: RegExp) => Object.fromEntries(Object.entries(functions.find((f) => description.test(f.Properties.Description ?? ''))!
    .Properties.Environment!.Variables!).filter(([, value]) => typeof value === 'string')) as Record<string, string>;
  return { consumer: envOf(/^Inbox consumer/), relay: envOf(/^Outbox relay/) };
}

// A target that is down: every row the handler wrote is left for the relay.
const down: Publisher = { publish: async (entries) => entries.map(() => ({ kind: 'retry' as const, reason: 'throttled' })) };

const shipHandle = async (order: { id: number }, { outbox }: MessageContext) => {
  await outbox.send({ target: 'shipped', body: JSON.stringify(order) });
};

describe('one consumer name: the construct\'s, handed to its function and its relay', () => {
  let fresh: FreshDatabase;
  let api: RunningDataApi;
  let local: TestSqs;
  const saved = { ...process.env };

  beforeAll(async () => {
    fresh = await freshDatabase();
    api = await startDataApi({ databaseUrl: fresh.url });
    local = await startTestSqs();
  });
  afterEach(() => {
    process.env = { ...saved };
  });
  afterAll(async () => {
    process.env = saved;
    await local?.close();
    await api?.close();
    await fresh?.close();
  });

  it('a relay deployed with defaults sends the rows its consumer\'s handler wrote without a consumer option (synthesis included)', { timeout: 120_000 }, async () => {
    const deployed = deployedEnvironments();
    const consumer = deployed.consumer[INBOX_ENV.consumer]!;
    const db = pgDatabase({ connectionString: fresh.url });
    process.env = { ...saved, ...deployed.consumer };
    try {
      const response = await processBatch(sqsEvent(sqsRecord({ id: 1 }), sqsRecord({ id: 2 })), lambdaContext(), {
        db, handle: shipHandle, outbox: { targets: { shipped: down }, maxAttempts: 1 },
      });
      expect(response).toEqual({ batchItemFailures: [] });
    } finally {
      await db.close();
    }
    expect(await outboxRows(fresh.pool, consumer)).toHaveLength(2);
    await ageOutbox(fresh.pool, consumer, 120);

    const queueUrl = await local.createQueue(queueName('shipped'));
    process.env = {
      ...saved,
      ...deployed.relay,
      // The synthesized cluster, secret and queue are tokens: the emulators stand in for them.
      [INBOX_ENV.clusterArn]: LOCAL_DATA_API_TARGET.resourceArn,
      [INBOX_ENV.secretArn]: LOCAL_DATA_API_TARGET.secretArn,
      [INBOX_ENV.databaseName]: decodeURIComponent(new URL(fresh.url).pathname.slice(1)),
      [INBOX_ENV.outboxTargets]: JSON.stringify({ shipped: { type: 'sqs', queueUrl } }),
      AWS_ENDPOINT_URL_RDS_DATA: api.endpoint, AWS_ENDPOINT_URL_SQS: local.sqs.endpoint,
      AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local',
    };
    vi.resetModules();
    const { handler } = await import('../../functions/outbox-relay/index.js');
    const report = await (handler as (event: unknown, context: Context) => Promise<RelayReport>)({}, lambdaContext(60_000));

    expect(deployed.relay[INBOX_ENV.consumer]).toBe(consumer);
    expect(report).toMatchObject({ sent: 2, undispatched: 0 });
    const rows = await outboxRows(fresh.pool, consumer);
    expect((await drainMessages(local.client, queueUrl)).map(keyAttribute).sort()).toEqual(rows.map((row) => row.id).sort());
  });

  describe('a handler whose explicit consumer differs from the deployed one', () => {
    it('fails its first invocation as a whole, naming both, and acknowledges nothing', async () => {
      process.env = { ...saved, [INBOX_ENV.consumer]: 'ship-orders' };
      const db = pgDatabase({ connectionString: fresh.url });
      try {
        const options = { consumer: 'orders-v2', db, handle: shipHandle, outbox: { targets: { shipped: down } } };

        await expect(processBatch(sqsEvent(sqsRecord({ id: 3 })), lambdaContext(), options))
          .rejects.toThrow(/The consumer option is "orders-v2" but this function is deployed as the consumer "ship-orders" \(INBOX_CONSUMER/);
        await expect(processBatch(sqsEvent(sqsRecord({ id: 3 })), lambdaContext(), options)).rejects.toMatchObject({ name: 'ConsumerNameMismatchError' });
        expect((await inboxRows(fresh.pool, 'orders-v2')).size).toBe(0);
        expect((await inboxRows(fresh.pool, 'ship-orders')).size).toBe(0);
      } finally {
        await db.close();
      }
    });

    it('built as middleware, fails at its first invocation, not when the module loads', async () => {
      process.env = { ...saved, [INBOX_ENV.consumer]: 'ship-orders' };
      const db = pgDatabase({ connectionString: fresh.url });
      try {
        const handler = middy().use(inbox({ consumer: 'orders-v2', db, handle: shipHandle, outbox: { targets: { shipped: down } } }));

        await expect(handler(sqsEvent(sqsRecord({ id: 4 })), lambdaContext())).rejects.toThrow(/"orders-v2" .*"ship-orders"/);
        expect((await inboxRows(fresh.pool, 'orders-v2')).size).toBe(0);
      } finally {
        await db.close();
      }
    });
  });

  it('without a consumer option nor INBOX_CONSUMER, is refused with a named error that says what to give', () => {
    delete process.env[INBOX_ENV.consumer];
    const db = pgDatabase({ connectionString: fresh.url });
    const make = () => inbox({ db, handle: shipHandle });

    expect(make).toThrow(InboxConfigError);
    expect(make).toThrow(expect.objectContaining({ name: 'ConsumerNameMissingError', message: expect.stringMatching(/give the consumer option .*or run where INBOX_CONSUMER is set/) }));
    void db.close();
  });
});
