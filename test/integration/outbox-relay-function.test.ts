import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RelayReport } from '../../functions/inbox/outbox/index.js';
import type { relaySettings as RelaySettings } from '../../functions/outbox-relay/index.js';
import { LOCAL_DATA_API_TARGET, startDataApi, type RunningDataApi } from '../../local/data-api/index.js';
import { captureStdout } from '../support/capture-stdout.js';
import { freshDatabase, type FreshDatabase } from '../support/database.js';
import { drainMessages, keyAttribute } from '../support/outbox.js';
import { queueName, startTestSqs, type TestSqs } from '../support/sqs.js';
import { lambdaContext } from '../support/sqs-events.js';

describe('the scheduled relay function over the Data API, sending to SQS from its environment', () => {
  let fresh: FreshDatabase;
  let api: RunningDataApi;
  let local: TestSqs;
  let queueUrl: string;
  let handler: (event: unknown, context: Context) => Promise<RelayReport>;
  let relaySettings: typeof RelaySettings;

  beforeAll(async () => {
    fresh = await freshDatabase();
    api = await startDataApi({ databaseUrl: fresh.url });
    local = await startTestSqs();
    queueUrl = await local.createQueue(queueName('relayed'));
    // What the stack will give the function, pointed at the emulators; the SDK reads the endpoints from the environment.
    Object.assign(process.env, {
      CLUSTER_ARN: LOCAL_DATA_API_TARGET.resourceArn,
      SECRET_ARN: LOCAL_DATA_API_TARGET.secretArn,
      DATABASE_NAME: decodeURIComponent(new URL(fresh.url).pathname.slice(1)),
      AWS_ENDPOINT_URL_RDS_DATA: api.endpoint,
      AWS_ENDPOINT_URL_SQS: local.sqs.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      INBOX_CONSUMER: 'ship-orders',
      AWS_LAMBDA_FUNCTION_NAME: 'ship-orders-relay',
      INBOX_OUTBOX_TARGETS: JSON.stringify({ shipped: { type: 'sqs', queueUrl } }),
      INBOX_OUTBOX_GRACE_SECONDS: '30',
      POWERTOOLS_SERVICE_NAME: 'ship-orders',
      POWERTOOLS_METRICS_NAMESPACE: 'SqsInbox/relay-test',
    });
    // Imported once the environment is set: the Powertools logger reads it when the module loads.
    ({ handler, relaySettings } = await import('../../functions/outbox-relay/index.js'));
  });

  afterAll(async () => {
    await local?.close();
    await api?.close();
    await fresh?.close();
  });

  it('sends the rows past the grace period and publishes what it did', async () => {
    await fresh.pool.query(`INSERT INTO outbox_message (id, consumer_name, message_key, target, body, size_bytes, created_at)
      SELECT gen_random_uuid(), 'ship-orders', 'k' || g, 'shipped', '{"n":' || g || '}', 7, now() - CASE WHEN g <= 3 THEN interval '5 minutes' ELSE interval '0' END
      FROM generate_series(1, 4) g`);
    const stdout = captureStdout();
    let report: RelayReport;
    try {
      report = await handler({}, lambdaContext(60_000));
    } finally {
      stdout.restore();
    }

    expect(report).toMatchObject({ sent: 3, failed: 0, left: 0, undispatched: 1 });
    const { rows } = await fresh.pool.query<{ id: string }>('SELECT id FROM outbox_message WHERE dispatched_at IS NOT NULL');
    expect((await drainMessages(local.client, queueUrl)).map(keyAttribute).sort()).toEqual(rows.map((row) => row.id).sort());
    expect(stdout.emf()).toEqual([expect.objectContaining({ outboxSentByRelay: 3, outboxOldestUndispatchedAge: expect.any(Number), service: 'ship-orders' })]);
  });

  it('refuses an environment without the consumer, or with a grace that is no number of seconds', () => {
    expect(() => relaySettings({})).toThrow(/Set INBOX_CONSUMER/);
    expect(() => relaySettings({ INBOX_CONSUMER: 'c', INBOX_OUTBOX_GRACE_SECONDS: 'soon' })).toThrow(/INBOX_OUTBOX_GRACE_SECONDS must be a number of seconds of 0 or more, but "soon"/);
    expect(relaySettings({ INBOX_CONSUMER: 'c', INBOX_OUTBOX_GRACE_SECONDS: '1.5' })).toEqual({ consumer: 'c', graceMs: 1500 });
  });
});
