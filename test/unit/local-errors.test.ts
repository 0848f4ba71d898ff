import { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { InboxError } from '../../functions/inbox/index.js';
import { KafkaLog, lambdaContext, startDataApi, startEventSource, startKafkaEventSource, startSqs } from '../../local/index.js';
import { LocalConfigError, LocalStackError } from '../../local/errors.js';
import { createScratchDatabase } from '../../local/scratch-database.js';
import { startEventBridge } from '../../local/eventbridge/index.js';
import { startSns } from '../../local/sns/index.js';
import { startSecretsManager } from '../../local/secrets-manager/index.js';
import { KafkaLogError, UnknownTopicOrPartitionError } from '../../local/kafka/index.js';

/** What `act` threw or rejected with. */
async function thrownBy(act: () => unknown): Promise<unknown> {
  try {
    await act();
  } catch (error) {
    return error;
  }
  throw new Error('nothing was thrown');
}

describe("the stand-ins throw their own errors, never the kit's InboxError", () => {
  const log = new KafkaLog();
  log.createTopic('orders');
  const handler = async () => undefined;

  it.each([
    ['a bad option of the Kafka poller', () => startKafkaEventSource({ log, topic: 'orders', handler, pollers: 0 }), LocalConfigError],
    ['a bad option of the SQS poller', () => startEventSource({ client: new SQSClient({}), queueUrl: 'http://127.0.0.1:1/q', handler, pollers: 0 }), LocalConfigError],
    ['a bad topic name', () => log.createTopic('bad name'), LocalConfigError],
    ['a bad account id of the SQS emulator', () => startSqs({ accountId: '1' }), LocalConfigError],
    ['a bad account id of the SNS emulator', () => startSns({ accountId: 'x' }), LocalConfigError],
    ['a bad account id of the EventBridge emulator', () => startEventBridge({ accountId: 'x' }), LocalConfigError],
    ['a bad account id of the Secrets Manager stand-in', () => startSecretsManager({ accountId: 'x' }), LocalConfigError],
    ['a Data API without a database', () => startDataApi({ databaseUrl: '' }), LocalConfigError],
    ['a scratch database name PostgreSQL would need quoted', () => createScratchDatabase('postgres://127.0.0.1:1/postgres', 'Bad-Name'), LocalConfigError],
    ['a topic the log does not have', () => log.produce('missing', { value: 'x' }), UnknownTopicOrPartitionError],
    ['a broker refusal', () => log.commit('group', 'orders', 0, -1), KafkaLogError],
    ["a handler's callback-style context call", () => lambdaContext({ functionName: 'f', timeoutMs: 1000, region: 'us-east-1', accountId: '000000000000' }).done(), LocalStackError],
  ])('%s', async (_case, act, kind) => {
    const error = await thrownBy(act);
    expect(error).toBeInstanceOf(kind);
    expect(error).toBeInstanceOf(LocalStackError);
    expect(error).not.toBeInstanceOf(InboxError);
  });

  it('names each error by its class', async () => {
    expect(await thrownBy(() => startSqs({ accountId: '1' }))).toMatchObject({ name: 'LocalConfigError', message: 'accountId must be 12 digits, but "1" was given.' });
    expect(await thrownBy(() => log.produce('missing', { value: 'x' }))).toMatchObject({ name: 'UnknownTopicOrPartitionError' });
  });
});
