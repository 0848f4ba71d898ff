import { CreateQueueCommand, SendMessageBatchCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { CreateTopicCommand, type SNSClient } from '@aws-sdk/client-sns';
import { PutEventsCommand, type EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { Duration } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AWS_LIMITS } from '../../functions/inbox/aws-limits.js';
import { sendMessages } from '../../functions/inbox/producer/index.js';
import { eventBridgeTarget, sqsTarget, snsTarget } from '../../functions/inbox/outbox/index.js';
import { resolvePublisher } from '../../functions/inbox/outbox/publisher.js';
import type { InboxConsumerProps } from '../../lib/sqs/inbox-consumer-props.js';
import type { InboxKafkaConsumerProps } from '../../lib/kafka/inbox-kafka-consumer-props.js';
import { startEventSource, type StartEventSourceOptions } from '../../local/event-source/index.js';
import { localEventBridgeClient, startEventBridge, type RunningEventBridge } from '../../local/eventbridge/index.js';
import { KafkaLog, startKafkaEventSource, type StartKafkaEventSourceOptions } from '../../local/kafka/index.js';
import { localSnsClient, startSns, type RunningSns } from '../../local/sns/index.js';
import { consumerTemplate } from '../infra/consumer-fixture.js';
import { kafkaConsumer } from '../infra/kafka-consumer-fixture.js';
import { queueName, startTestSqs, type TestSqs } from '../support/sqs.js';

let local: TestSqs;
let sns: RunningSns;
let snsClient: SNSClient;
let events: RunningEventBridge;
let eventsClient: EventBridgeClient;

beforeAll(async () => {
  local = await startTestSqs();
  sns = await startSns();
  snsClient = localSnsClient(sns.endpoint);
  events = await startEventBridge({ buses: ['orders'] });
  eventsClient = localEventBridgeClient(events.endpoint);
});

afterAll(async () => {
  snsClient.destroy();
  eventsClient.destroy();
  await Promise.all([local.close(), sns.close(), events.close()]);
});

/** A side of a limit: takes the value (resolves) or refuses it (throws or rejects). */
type Side = (value: number) => unknown;

/** One limit of the table, as a construct or the kit and the emulator standing in for the service hold to it. */
interface LimitCase {
  /** Where the limit is in `AWS_LIMITS`. */
  readonly limit: string;
  /** The limit itself: taken by both sides. */
  readonly at: number;
  /** Who holds to it on our side, and who in local/. */
  readonly kitSide: string;
  readonly emulatorSide: string;
  /** Each of our sides that holds to it (a construct, the producer, an outbox target). */
  readonly kit: readonly Side[];
  readonly emulator: Side;
}

/** The error a side threw for `value`, or undefined when it took the value. */
async function refusalOf(side: Side, value: number): Promise<Error | undefined> {
  try {
    await side(value);
    return undefined;
  } catch (error) {
    return error as Error;
  }
}

const handler = async () => undefined;
const sqsConsumer = (props: Partial<InboxConsumerProps>) => consumerTemplate(props);
const kafkaConsumerWith = (props: Partial<InboxKafkaConsumerProps>) => kafkaConsumer(() => props);

/** An event source on a new queue of the emulator, stopped as soon as it started. */
async function sqsEventSource(fifo: boolean, options: Partial<StartEventSourceOptions>): Promise<void> {
  const queueUrl = await local.createQueue(queueName('limits', fifo));
  const source = await startEventSource({ client: local.client, queueUrl, handler, waitTimeSeconds: 0, pollers: 1, ...options });
  await source.stop();
}

/** A Kafka event source on a fresh log, stopped as soon as it started. */
async function kafkaEventSource(options: Partial<StartKafkaEventSourceOptions>): Promise<void> {
  const log = new KafkaLog();
  log.createTopic('orders', { partitions: 1 });
  await startKafkaEventSource({ log, topic: 'orders', handler, ...options }).stop();
}

/** Sends one message through the producer, which refuses what SQS would before sending it. */
async function produce(body: string, maxBatchBytes?: number): Promise<void> {
  const queueUrl = await local.createQueue(queueName('limits'));
  const { failed } = await sendMessages(local.client, queueUrl, [{ body, key: 'k' }], maxBatchBytes === undefined ? {} : { maxBatchBytes });
  if (failed.length > 0) throw new Error(`${failed[0]!.code}: ${failed[0]!.message}`);
}

// Bytes a message of the producer's carries besides its body: the key attribute `idempotency-key` = 'k'.
const KEY_BYTES = 'idempotency-key'.length + 'String'.length + 1;

/** An EventBridge entry of exactly `size` bytes as EventBridge counts it. */
function eventOfSize(size: number) {
  const fixed = 'shop'.length + 'OrderShipped'.length + '{"p":""}'.length;
  return { EventBusName: 'orders', Source: 'shop', DetailType: 'OrderShipped', Detail: JSON.stringify({ p: 'x'.repeat(size - fixed) }) };
}

/** The outbox's EventBridge target preparing a row whose entry is exactly `size` bytes. */
function eventRow(size: number): void {
  const publisher = resolvePublisher('events', eventBridgeTarget({ eventBusName: 'orders', source: 'shop', detailType: 'OrderShipped' }));
  const context = { id: '01923c4e-8a2b-7c3d-9e4f-5a6b7c8d9e0f', consumer: 'ship-orders', target: 'events' };
  const overhead = publisher.prepare({ target: 'events', body: { p: '' } }, context).sizeBytes;
  publisher.prepare({ target: 'events', body: { p: 'x'.repeat(size - overhead) } }, context);
}

/** The outbox's SQS target preparing a row of exactly `size` bytes, its id as the key included. */
function sqsRow(size: number): void {
  const publisher = resolvePublisher('shipped', sqsTarget({ queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/shipped' }));
  const context = { id: '01923c4e-8a2b-7c3d-9e4f-5a6b7c8d9e0f', consumer: 'ship-orders', target: 'shipped' };
  publisher.prepare({ target: 'shipped', body: 'x'.repeat(size - 'idempotency-key'.length - 'String'.length - context.id.length) }, context);
}

const { sqs, sns: topics, eventBridge, lambdaSqs, lambdaKafka } = AWS_LIMITS;

const CASES: readonly LimitCase[] = [
  {
    limit: 'lambdaSqs.batchSize', at: lambdaSqs.batchSize.max, kitSide: 'InboxConsumer', emulatorSide: 'local/event-source',
    kit: [(batchSize) => sqsConsumer({ batchSize, maxBatchingWindow: Duration.seconds(1) })],
    emulator: (batchSize) => sqsEventSource(false, { batchSize, maxBatchingWindowMs: 1000 }),
  },
  {
    limit: 'lambdaSqs.fifoBatchSize', at: lambdaSqs.fifoBatchSize.max, kitSide: 'InboxConsumer', emulatorSide: 'local/event-source',
    kit: [(batchSize) => sqsConsumer({ batchSize, queueProps: { fifo: true } })],
    emulator: (batchSize) => sqsEventSource(true, { batchSize }),
  },
  {
    limit: 'lambdaSqs.batchingWindowSeconds', at: lambdaSqs.batchingWindowSeconds.max, kitSide: 'InboxConsumer', emulatorSide: 'local/event-source',
    kit: [(seconds) => sqsConsumer({ batchSize: 100, maxBatchingWindow: Duration.seconds(seconds) })],
    emulator: (seconds) => sqsEventSource(false, { batchSize: 100, maxBatchingWindowMs: seconds * 1000 }),
  },
  {
    limit: 'lambda.timeoutSeconds', at: AWS_LIMITS.lambda.timeoutSeconds.max, kitSide: 'InboxConsumer', emulatorSide: 'local/event-source',
    kit: [(seconds) => sqsConsumer({ timeout: Duration.seconds(seconds) })],
    emulator: (seconds) => sqsEventSource(false, { functionTimeoutMs: seconds * 1000 }),
  },
  {
    limit: 'sqs.maxReceiveCount', at: sqs.maxReceiveCount.max, kitSide: 'InboxConsumer', emulatorSide: 'local/sqs CreateQueue',
    kit: [(maxReceiveCount) => sqsConsumer({ maxReceiveCount })],
    emulator: async (maxReceiveCount) => {
      const dlq = queueName('dlq');
      await local.createQueue(dlq);
      const deadLetterTargetArn = `arn:aws:sqs:us-east-1:000000000000:${dlq}`;
      await local.client.send(new CreateQueueCommand({ QueueName: queueName('limits'), Attributes: { RedrivePolicy: JSON.stringify({ deadLetterTargetArn, maxReceiveCount }) } }));
    },
  },
  {
    limit: 'sqs.messageBytes', at: sqs.messageBytes.max, kitSide: 'the producer and the outbox\'s sqsTarget', emulatorSide: 'local/sqs SendMessage',
    kit: [(bytes) => produce('x'.repeat(bytes - KEY_BYTES)), (bytes) => sqsRow(bytes)],
    emulator: async (bytes) => {
      await local.client.send(new SendMessageCommand({ QueueUrl: await local.createQueue(queueName('limits')), MessageBody: 'x'.repeat(bytes) }));
    },
  },
  {
    limit: 'sqs.batchBytes', at: sqs.batchBytes, kitSide: 'the producer', emulatorSide: 'local/sqs SendMessageBatch',
    kit: [(bytes) => produce('small', bytes)],
    emulator: async (bytes) => {
      const half = Math.floor(bytes / 2);
      const entries = [{ Id: 'a', MessageBody: 'x'.repeat(half) }, { Id: 'b', MessageBody: 'x'.repeat(bytes - half) }];
      await local.client.send(new SendMessageBatchCommand({ QueueUrl: await local.createQueue(queueName('limits')), Entries: entries }));
    },
  },
  {
    limit: 'sns.messageBytes', at: topics.messageBytes.max, kitSide: 'the outbox\'s snsTarget', emulatorSide: 'local/sns CreateTopic',
    kit: [(maxMessageBytes) => snsTarget({ topicArn: 'arn:aws:sns:us-east-1:123456789012:notices', maxMessageBytes })],
    emulator: (size) => snsClient.send(new CreateTopicCommand({ Name: queueName('limits'), Attributes: { MaximumMessageSize: String(size) } })),
  },
  {
    limit: 'eventBridge.batchBytes', at: eventBridge.batchBytes, kitSide: 'the outbox\'s eventBridgeTarget', emulatorSide: 'local/eventbridge PutEvents',
    kit: [(size) => eventRow(size)],
    emulator: (size) => eventsClient.send(new PutEventsCommand({ Entries: [eventOfSize(size)] })),
  },
  {
    limit: 'lambdaKafka.batchSize', at: lambdaKafka.batchSize.max, kitSide: 'InboxKafkaConsumer', emulatorSide: 'local/kafka',
    kit: [(batchSize) => kafkaConsumerWith({ batchSize })],
    emulator: (batchSize) => kafkaEventSource({ batchSize }),
  },
  {
    limit: 'lambdaKafka.batchingWindowSeconds', at: lambdaKafka.batchingWindowSeconds.max, kitSide: 'InboxKafkaConsumer', emulatorSide: 'local/kafka',
    kit: [(seconds) => kafkaConsumerWith({ maxBatchingWindow: Duration.seconds(seconds) })],
    emulator: (seconds) => kafkaEventSource({ maxBatchingWindowMs: seconds * 1000 }),
  },
  {
    limit: 'lambdaKafka.retryAttempts', at: lambdaKafka.retryAttempts.max, kitSide: 'InboxKafkaConsumer', emulatorSide: 'local/kafka',
    kit: [(retryAttempts) => kafkaConsumerWith({ retryAttempts })],
    emulator: (maximumRetryAttempts) => kafkaEventSource({ maximumRetryAttempts }),
  },
];

describe('a limit of AWS_LIMITS is held to alike by our side and by its emulator', () => {
  it.each(CASES)('$limit: taken at the limit, one past it refused by $kitSide and by $emulatorSide', async ({ at, kit, emulator }) => {
    for (const side of [...kit, emulator]) expect(await refusalOf(side, at)).toBeUndefined();
    for (const side of kit) {
      // Each refusal names the limit it met, not some other rule.
      expect((await refusalOf(side, at + 1))?.message).toMatch(new RegExp(`${at}|${at + 1}`));
    }
    expect((await refusalOf(emulator, at + 1))?.message).toMatch(new RegExp(`${at}|${at + 1}|${at * 1000}|too long|over the limit`, 'i'));
  }, 120_000);
});
