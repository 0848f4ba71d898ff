import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INBOX_ENV } from '../../functions/inbox/contract.js';
import type * as OrderWorker from '../../functions/order-worker/index.js';
import { InboxConfigError } from '../../functions/inbox/index.js';
import { lambdaContext, sqsEvent } from '../support/sqs-events.js';

/** The Data API target the stack gives every worker; no call reaches it here. */
const DATA_API_ENV = {
  [INBOX_ENV.clusterArn]: 'arn:aws:rds:eu-west-1:123456789012:cluster:inbox',
  [INBOX_ENV.secretArn]: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:order_worker-AbCdEf',
  [INBOX_ENV.databaseName]: 'inbox',
  // What the stack sets beside them, and quiet: these tests read answers, not logs.
  [INBOX_ENV.consumer]: 'ship-order',
  POWERTOOLS_SERVICE_NAME: 'ship-order',
  POWERTOOLS_METRICS_NAMESPACE: 'SqsInbox/test',
  POWERTOOLS_LOG_LEVEL: 'SILENT',
};
const saved = { ...process.env };
let worker: typeof OrderWorker;

beforeAll(async () => {
  Object.assign(process.env, DATA_API_ENV);
  delete process.env[INBOX_ENV.outboxTargets];
  worker = await import('../../functions/order-worker/index.js');
});

afterAll(() => {
  process.env = saved;
});

describe('the deployed order worker takes its outbox targets from INBOX_OUTBOX_TARGETS, at its first invocation', () => {
  it('loads without them, so the file\'s other handlers deploy without an outbox', () => {
    expect(typeof worker.paymentHandler).toBe('function');
  });

  it('fails an invocation without them, naming the variable: the batch returns to the queue, nothing ships unannounced', async () => {
    await expect(worker.handler(sqsEvent(), lambdaContext())).rejects.toThrow(InboxConfigError);
    await expect(worker.handler(sqsEvent(), lambdaContext())).rejects.toThrow(/INBOX_OUTBOX_TARGETS is not set/);
  });

  it('fails one whose targets lack shipmentNotices, naming it', async () => {
    process.env[INBOX_ENV.outboxTargets] = JSON.stringify({ shipped: { type: 'sqs', queueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/shipped.fifo' } });
    await expect(worker.handler(sqsEvent(), lambdaContext())).rejects.toThrow(/a target named shipmentNotices/);
  });

  it('runs with the targets the InboxConsumer\'s outbox sets', async () => {
    process.env[INBOX_ENV.outboxTargets] = JSON.stringify({ shipmentNotices: { type: 'sqs', queueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/notices.fifo' } });
    await expect(worker.handler(sqsEvent(), lambdaContext())).resolves.toEqual({ batchItemFailures: [] });
  });
});
