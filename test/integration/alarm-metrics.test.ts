import { Metrics } from '@aws-lambda-powertools/metrics';
import { App, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { INBOX_ENV } from '../../functions/inbox/contract.js';
import { processBatch, processKafkaBatch, type InboxMetrics } from '../../functions/inbox/index.js';
import { relayOutbox, type Publisher } from '../../functions/inbox/outbox/index.js';
import { pgDatabase } from '../../functions/inbox/pg/index.js';
import { InboxStack } from '../../lib/stack/inbox-stack.js';
import { stackConfigFromContext } from '../../lib/stack/stack-config.js';
import { LOCAL_DATA_API_TARGET, startDataApi, type RunningDataApi } from '../../local/data-api/index.js';
import '../support/cdk-assemblies.js';
import { captureStdout } from '../support/capture-stdout.js';
import { freshDatabase, type FreshDatabase } from '../support/database.js';
import { kafkaEvent, kafkaRecord } from '../support/kafka-events.js';
import { lambdaContext, sqsEvent, sqsRecord } from '../support/sqs-events.js';
import { outboxConsumer } from '../infra/outbox-fixture.js';

/** One metric an alarm reads: its namespace, name and dimensions with their values. */
interface MetricId { readonly namespace: string; readonly name: string; readonly dimensions: Readonly<Record<string, string>> }
type Resource = { Type: string; Properties: Record<string, unknown> };
type CfnMetric = { Namespace: string; MetricName: string; Dimensions?: { Name: string; Value: unknown }[] };

const idText = (m: MetricId) => `${m.namespace} ${m.name} ${JSON.stringify(Object.entries(m.dimensions).sort())}`;
const metricOf = (m: CfnMetric): MetricId => ({
  namespace: m.Namespace,
  name: m.MetricName,
  dimensions: Object.fromEntries((m.Dimensions ?? []).map((d) => [d.Name, typeof d.Value === 'string' ? d.Value : JSON.stringify(d.Value)])),
});

/** Every metric the alarms of `template` read that the kit publishes (AWS's own namespaces left out); a math alarm's inputs. */
function alarmMetrics(template: Template): MetricId[] {
  const alarms = Object.values(template.toJSON().Resources as Record<string, Resource>).filter((r) => r.Type === 'AWS::CloudWatch::Alarm');
  const read = alarms.flatMap(({ Properties: p }) => (p.MetricName !== undefined
    ? [metricOf(p as unknown as CfnMetric)]
    : (p.Metrics as { MetricStat?: { Metric: CfnMetric } }[]).flatMap((q) => (q.MetricStat ? [metricOf(q.MetricStat.Metric)] : []))));
  return read.filter((m) => !m.namespace.startsWith('AWS/'));
}

/** The environment variables of every function of `template`, with its description. */
function functionsOf(template: Template): { description: string; env: Record<string, string> }[] {
  return Object.values(template.toJSON().Resources as Record<string, Resource>)
    .filter((r) => r.Type === 'AWS::Lambda::Function')
    .map(({ Properties: p }) => ({
      description: String(p.Description ?? ''),
      env: Object.fromEntries(Object.entries((p.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {})
        .filter(([, value]) => typeof value === 'string')) as Record<string, string>,
    }));
}

/** Every metric in the EMF documents written: namespace, name, and the dimensions its directive names. */
function emitted(documents: Record<string, unknown>[]): MetricId[] {
  return documents.flatMap((doc) => {
    const directives = (doc._aws as { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[] }).CloudWatchMetrics;
    return directives.flatMap((d) => d.Dimensions.flatMap((set) => d.Metrics.map((m) => ({
      namespace: d.Namespace, name: m.Name, dimensions: Object.fromEntries(set.map((name) => [name, String(doc[name])])),
    }))));
  });
}

const refusing: Publisher = { publish: async (entries) => entries.map(() => ({ kind: 'refused' as const, reason: 'the queue is gone' })) };

/** The synthesized stacks a user or the repository deploys, without bundling. */
function stacks(): { label: string; template: Template }[] {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const config = stackConfigFromContext(app.node);
  const reference: Stack = new InboxStack(app, `SqsInbox-${config.stage}`, { config });
  return [
    { label: 'the reference InboxStack', template: Template.fromStack(reference) },
    { label: 'a user\'s SQS consumer with an outbox and an InboxDatabase', template: outboxConsumer('InboxConsumer', () => ({}), true).template },
    { label: 'a user\'s Kafka consumer with an outbox and its own namespace', template: outboxConsumer('InboxKafkaConsumer', () => ({ metricsNamespace: 'Payments' }), true).template },
  ];
}

describe('every alarm of a synthesized stack reads a metric the runtime writes, with and without a Powertools metrics', () => {
  let fresh: FreshDatabase;
  let api: RunningDataApi;
  const saved = { ...process.env };

  beforeAll(async () => {
    fresh = await freshDatabase();
    api = await startDataApi({ databaseUrl: fresh.url });
  });
  afterAll(async () => {
    process.env = saved;
    await api?.close();
    await fresh?.close();
  });

  /** Runs `work` as a Lambda function deployed with `env`, answering the EMF documents it wrote. */
  async function asDeployed(env: Record<string, string>, work: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
    process.env = { ...saved, ...env, AWS_LAMBDA_FUNCTION_NAME: 'under-test' };
    const stdout = captureStdout();
    try {
      await work();
    } finally {
      stdout.restore();
    }
    return stdout.emf();
  }

  /** A batch with every outcome the alarms count: processed, duplicate, collision, rejected, failed, a fallback key, an outbox row refused. */
  async function consumerBatch(kafka: boolean, metrics: InboxMetrics | undefined): Promise<void> {
    const db = pgDatabase({ connectionString: fresh.url });
    const key = `k-${Math.random()}`;
    const options = {
      db,
      metrics,
      outbox: { targets: { gone: refusing }, maxAttempts: 1 },
      handle: async (m: { n: number; fail?: boolean }, ctx: { outbox: { send(message: { target: string; body: string }): Promise<string> } }) => {
        if (m.fail) throw new Error('the database is down');
        await ctx.outbox.send({ target: 'gone', body: JSON.stringify(m) });
      },
    };
    try {
      if (kafka) {
        const headers = (k: string) => ({ headers: { 'idempotency-key': k } });
        await processKafkaBatch(kafkaEvent([
          kafkaRecord({ n: 1 }, headers(key)), kafkaRecord({ n: 1 }, headers(key)), kafkaRecord({ n: 2 }, headers(key)),
          kafkaRecord('not json', headers(`${key}-r`)), kafkaRecord({ n: 3, fail: true }, headers(`${key}-f`)),
        ]), lambdaContext(), options);
      } else {
        await processBatch(sqsEvent(
          sqsRecord({ n: 1 }, { key }), sqsRecord({ n: 1 }, { key }), sqsRecord({ n: 2 }, { key }),
          sqsRecord('not json', { key: `${key}-r` }), sqsRecord({ n: 3, fail: true }, { key: `${key}-f` }), sqsRecord({ n: 4 }, { key: null }),
        ), lambdaContext(), options);
      }
    } finally {
      await db.close();
    }
  }

  /** A relay run that finds an old row its target refuses. */
  async function relayRun(consumer: string, metrics: InboxMetrics | undefined): Promise<void> {
    const db = pgDatabase({ connectionString: fresh.url });
    try {
      await fresh.pool.query(`INSERT INTO outbox_message (id, consumer_name, message_key, target, body, size_bytes, created_at)
        VALUES (gen_random_uuid(), $1, 'relay-' || gen_random_uuid(), 'gone', '{}', 2, now() - interval '10 minutes')`, [consumer]);
      await relayOutbox(db, { gone: refusing }, { consumer, graceMs: 0, metrics });
    } finally {
      await db.close();
    }
  }

  /** The cleanup function as deployed: its module reads its namespace when it loads. */
  async function cleanupRun(): Promise<void> {
    vi.resetModules();
    const { handler } = await import('../../functions/inbox-cleanup/index.js');
    await (handler as (event: unknown, context: Context) => Promise<unknown>)({}, lambdaContext(600_000));
  }

  const dataApiEnv = () => ({
    [INBOX_ENV.clusterArn]: LOCAL_DATA_API_TARGET.resourceArn,
    [INBOX_ENV.secretArn]: LOCAL_DATA_API_TARGET.secretArn,
    [INBOX_ENV.databaseName]: decodeURIComponent(new URL(fresh.url).pathname.slice(1)),
    AWS_ENDPOINT_URL_RDS_DATA: api.endpoint, AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local',
  });

  /** Runs each function of the template with the environment the construct gave it, `withMetrics` or not. */
  async function runtimeOf(template: Template, withMetrics: boolean): Promise<MetricId[]> {
    const written: Record<string, unknown>[] = [];
    const powertools = () => (withMetrics ? new Metrics() : undefined);
    const flushed = async (metrics: Metrics | undefined, work: (m: Metrics | undefined) => Promise<void>) => {
      await work(metrics);
      metrics?.publishStoredMetrics();
    };
    for (const { description, env } of functionsOf(template)) {
      const runtimeEnv = { ...env, ...dataApiEnv() };
      if (env[INBOX_ENV.retentionDays] !== undefined) {
        written.push(...await asDeployed(runtimeEnv, cleanupRun));
      } else if (description.startsWith('Outbox relay')) {
        written.push(...await asDeployed(runtimeEnv, () => flushed(powertools(), (m) => relayRun(env[INBOX_ENV.consumer]!, m))));
      } else if (env[INBOX_ENV.consumer] !== undefined) {
        written.push(...await asDeployed(runtimeEnv, () => flushed(powertools(), (m) => consumerBatch(description.includes('Kafka'), m))));
      }
    }
    return emitted(written);
  }

  const built = stacks();

  it.each(built.flatMap(({ label, template }) => [
    { label, template, withMetrics: false, how: 'a handler without metrics (the kit\'s own EMF line)' },
    { label, template, withMetrics: true, how: 'a handler given a Powertools Metrics' },
  ]))('$label: $how', { timeout: 60_000 }, async ({ template, withMetrics }) => {
    const read = alarmMetrics(template);
    expect(read.length).toBeGreaterThan(0);

    const written = new Set((await runtimeOf(template, withMetrics)).map(idText));

    expect(read.map(idText).filter((metric) => !written.has(metric))).toEqual([]);
  });

  it('without metrics, writes one EMF line for the whole batch, not one a message', async () => {
    const documents = await asDeployed({ [INBOX_ENV.consumer]: 'one-line', POWERTOOLS_METRICS_NAMESPACE: 'Once' }, () => consumerBatch(false, undefined));
    expect(documents).toHaveLength(1);
    expect(documents[0]).toMatchObject({ service: 'one-line', processed: 2, duplicate: 1, collision: 1, rejected: 1, failed: 1, keyFallback: 1, outboxWritten: 2, outboxFailed: 2 });
  });

  it('writes nothing of its own beside a Powertools metrics given: one document, the one the handler flushes', async () => {
    const documents = await asDeployed({ [INBOX_ENV.consumer]: 'not-twice', POWERTOOLS_SERVICE_NAME: 'not-twice', POWERTOOLS_METRICS_NAMESPACE: 'Once' }, async () => {
      const metrics = new Metrics();
      await consumerBatch(false, metrics);
      metrics.publishStoredMetrics();
    });
    expect(documents).toHaveLength(1);
    expect(documents[0]).toMatchObject({ service: 'not-twice' });
    expect(Object.keys(documents[0]!)).toEqual(expect.arrayContaining(['processed', 'duplicate', 'collision', 'rejected', 'failed', 'keyFallback', 'outboxFailed']));
  });

  it('covers every alarm on the kit\'s metrics: the counts, the rates\' inputs, keyFallback, the outbox\'s and the cleanup\'s', () => {
    const names = new Set(built.flatMap(({ template }) => alarmMetrics(template)).map((m) => m.name));
    for (const name of ['collision', 'rejected', 'processed', 'duplicate', 'failed', 'keyFallback', 'outboxFailed', 'outboxOldestUndispatchedAge', 'done']) {
      expect(names).toContain(name);
    }
  });
});
