import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { redelivery, sqsEvent } from '../test/support/sqs-events.js';

/** How the messages reach the function. */
export interface InvocationShape {
  /** Records per invocation: SQS hands Lambda at most 10 from a FIFO queue, 10 by default from a standard one. */
  readonly batchSize: number;
  /** Invocations in flight at once, each a Lambda environment of its own (SQS's poller starts with 5). */
  readonly invocations: number;
  /** Receives after which a failing message is parked (a redrive policy's maxReceiveCount). */
  readonly maxReceiveCount: number;
}

/** What the deliveries came to. */
export interface DeliveryCount {
  readonly invocations: number;
  /** Records reported in batchItemFailures, and so delivered again. */
  readonly redeliveries: number;
  /** Messages that failed `maxReceiveCount` times and were parked, as SQS moves them to a DLQ. */
  readonly parked: number;
}

/**
 * Delivers `count` messages, made by `message(i)` when first taken, in batches of
 * `shape.batchSize` to `shape.invocations` environments at once, as Lambda's SQS poller does: each
 * environment takes the next batch when its invocation has answered, and a record the answer
 * reports failed goes back to the queue as a redelivery, until it has been received
 * `shape.maxReceiveCount` times; then it is parked, as a redrive policy moves it to a DLQ.
 *
 * @example
 * ```ts
 * await deliver(10_000, (i) => sqsRecord({ orderId: ids[i] }), { batchSize: 10, invocations: 5, maxReceiveCount: 5 }, (env, event) => processBatch(event, context(), options[env]));
 * ```
 */
export async function deliver(
  count: number,
  message: (index: number) => SQSRecord,
  shape: InvocationShape,
  invoke: (environment: number, event: SQSEvent) => Promise<SQSBatchResponse>,
): Promise<DeliveryCount> {
  let next = 0;
  const returned: SQSRecord[] = [];
  let invocations = 0;
  let redeliveries = 0;
  let parked = 0;
  const take = (): SQSRecord[] => {
    const batch = returned.splice(0, shape.batchSize);
    while (batch.length < shape.batchSize && next < count) batch.push(message(next++));
    return batch;
  };
  const environment = async (id: number) => {
    for (let batch = take(); batch.length > 0; batch = take()) {
      invocations += 1;
      const response = await invoke(id, sqsEvent(...batch));
      const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
      for (const record of batch.filter((delivered) => failed.has(delivered.messageId))) {
        if (Number(record.attributes.ApproximateReceiveCount) >= shape.maxReceiveCount) {
          parked += 1;
        } else {
          redeliveries += 1;
          returned.push(redelivery(record));
        }
      }
    }
  };
  await Promise.all(Array.from({ length: shape.invocations }, (_, id) => environment(id)));
  return { invocations, redeliveries, parked };
}
