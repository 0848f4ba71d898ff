import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { partitionKey, toKafkaEvent, type KafkaEventOrigin } from './kafka-event.js';
import type { KafkaLog, LogRecord } from './kafka-log.js';

/**
 * Where records that used up their retries go, as an event source mapping's OnFailure destination:
 * an SQS queue (through any SQSClient, the local emulator's included), or a topic of the same
 * cluster (Lambda's `kafka://<topic>`). SNS and S3 destinations are not modelled.
 */
export type KafkaOnFailureDestination =
  | { readonly type: 'sqs'; readonly client: SQSClient; readonly queueUrl: string }
  | { readonly type: 'kafka'; readonly topic: string };

/** Records the event source gave up on, and why, as the destination is told. */
export interface DiscardedRecords {
  readonly condition: 'RetryAttemptsExhausted';
  /** In partition and offset order. */
  readonly records: readonly LogRecord[];
  /** The last invocation's request id. */
  readonly requestId: string;
  /** Invocations that carried the failing position: the first one and its retries. */
  readonly approximateInvokeCount: number;
  /** Whether the last one ended in a function error (a throw, a timeout, a lost answer) rather than a response. */
  readonly functionError: boolean;
  /** When the records were given up, in epoch milliseconds. */
  readonly at: number;
}

/** The function the documents name. */
export interface FailedFunction {
  readonly arn: string;
}

const iso = (epochMs: number): string => new Date(epochMs).toISOString();

function responseContext(discarded: DiscardedRecords): Record<string, unknown> {
  return discarded.functionError
    ? { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' }
    : { statusCode: 200, executedVersion: '$LATEST' };
}

/**
 * The document Lambda sends an SQS or SNS destination for a discarded Kafka batch: metadata only,
 * each partition's first and last offsets and timestamps under `recordsInfo`
 * (https://docs.aws.amazon.com/lambda/latest/dg/kafka-on-failure.html, "SNS and SQS example invocation record").
 *
 * @example
 * ```ts
 * sqsFailureDocument(discarded, origin, { arn }).KafkaBatchInfo.recordsInfo['orders-0'].firstRecordOffset // '1'
 * ```
 */
export function sqsFailureDocument(discarded: DiscardedRecords, origin: KafkaEventOrigin, fn: FailedFunction) {
  const recordsInfo: Record<string, { firstRecordOffset: string; lastRecordOffset: string; firstRecordTimestamp: string; lastRecordTimestamp: string }> = {};
  for (const record of discarded.records) {
    const key = partitionKey(record.topic, record.partition);
    const info = recordsInfo[key];
    if (info === undefined) {
      const offset = String(record.offset);
      recordsInfo[key] = { firstRecordOffset: offset, lastRecordOffset: offset, firstRecordTimestamp: iso(record.timestamp), lastRecordTimestamp: iso(record.timestamp) };
    } else {
      info.lastRecordOffset = String(record.offset);
      info.lastRecordTimestamp = iso(record.timestamp);
    }
  }
  return {
    requestContext: { requestId: discarded.requestId, functionArn: fn.arn, condition: discarded.condition, approximateInvokeCount: discarded.approximateInvokeCount },
    responseContext: responseContext(discarded),
    version: '1.0',
    timestamp: iso(discarded.at),
    KafkaBatchInfo: {
      batchSize: discarded.records.length,
      ...(origin.eventSource === 'aws:kafka' ? { eventSourceArn: origin.clusterArn } : {}),
      bootstrapServers: origin.bootstrapServers,
      payloadSize: Buffer.byteLength(JSON.stringify(toKafkaEvent(discarded.records, origin))),
      recordsInfo,
    },
  };
}

/**
 * The message Lambda produces to a Kafka destination for one discarded record: the failure's
 * metadata, and the record itself as a one-record event under `payload`
 * (https://docs.aws.amazon.com/lambda/latest/dg/kafka-on-failure-destination.html, "Record format";
 * that page names the condition `RetriesExhausted` and the function by its `$LATEST` ARN).
 *
 * @example
 * ```ts
 * kafkaFailureDocument(record, discarded, origin, { arn }).payload.records['orders-0'][0].offset // record.offset
 * ```
 */
export function kafkaFailureDocument(record: LogRecord, discarded: DiscardedRecords, origin: KafkaEventOrigin, fn: FailedFunction) {
  const payload = toKafkaEvent([record], origin);
  return {
    requestContext: { requestId: discarded.requestId, functionArn: `${fn.arn}:$LATEST`, condition: 'RetriesExhausted', approximateInvokeCount: discarded.approximateInvokeCount },
    responseContext: responseContext(discarded),
    version: '1.0',
    timestamp: iso(discarded.at),
    KafkaBatchInfo: {
      batchSize: 1,
      ...(origin.eventSource === 'aws:kafka' ? { eventSourceArn: origin.clusterArn } : {}),
      bootstrapServers: origin.bootstrapServers,
      payloadSize: Buffer.byteLength(JSON.stringify(payload)),
      recordInfo: { offset: String(record.offset), timestamp: iso(record.timestamp) },
    },
    payload,
  };
}

/**
 * Sends discarded records to the destination: one SQS message for the batch, or one Kafka record
 * per discarded record under the original key (a keyless record goes to the topic's partitions in
 * turn), as the Kafka destination page says. Rejects if the destination refuses.
 *
 * @example
 * ```ts
 * await deliverDiscarded({ type: 'kafka', topic: 'orders-failed' }, discarded, { log, origin, fn });
 * ```
 */
export async function deliverDiscarded(
  destination: KafkaOnFailureDestination,
  discarded: DiscardedRecords,
  via: { readonly log: KafkaLog; readonly origin: KafkaEventOrigin; readonly fn: FailedFunction },
): Promise<void> {
  if (destination.type === 'sqs') {
    const body = JSON.stringify(sqsFailureDocument(discarded, via.origin, via.fn));
    await destination.client.send(new SendMessageCommand({ QueueUrl: destination.queueUrl, MessageBody: body }));
    return;
  }
  for (const record of discarded.records) {
    const value = JSON.stringify(kafkaFailureDocument(record, discarded, via.origin, via.fn));
    await via.log.produce(destination.topic, record.key === undefined ? { value } : { key: record.key, value });
  }
}
