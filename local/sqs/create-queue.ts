import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';

/** Options of `createQueue`. */
export interface CreateQueueOptions {
  /**
   * Attributes of the queue besides FifoQueue, which the name decides, and RedrivePolicy.
   * @default none
   */
  readonly attributes?: Readonly<Record<string, string>>;
  /**
   * A DLQ for the queue, named `<name>-dlq` (with `.fifo` on FIFO, as a FIFO queue's DLQ must be),
   * that takes a message after `maxReceiveCount` receives.
   * @default none
   */
  readonly deadLetter?: { readonly maxReceiveCount: number; readonly attributes?: Readonly<Record<string, string>> };
}

/** The URLs of a queue and of its DLQ, when it has one. */
export interface CreatedQueue {
  readonly queueUrl: string;
  readonly deadLetterQueueUrl?: string;
}

function fifoAttribute(name: string): Record<string, string> {
  return name.endsWith('.fifo') ? { FifoQueue: 'true' } : {};
}

/**
 * Creates a queue, FIFO when its name ends in `.fifo`, and optionally its DLQ with the redrive
 * policy that points the queue at it. Works on any SQSClient: the emulator's or a real one.
 *
 * @example
 * ```ts
 * const { queueUrl, deadLetterQueueUrl } = await createQueue(client, 'orders.fifo', { attributes: { VisibilityTimeout: '30' }, deadLetter: { maxReceiveCount: 5 } });
 * ```
 */
export async function createQueue(client: SQSClient, name: string, options: CreateQueueOptions = {}): Promise<CreatedQueue> {
  const attributes: Record<string, string> = { ...fifoAttribute(name), ...options.attributes };
  let deadLetterQueueUrl: string | undefined;
  if (options.deadLetter !== undefined) {
    const fifo = name.endsWith('.fifo');
    const deadLetterName = `${fifo ? name.slice(0, -'.fifo'.length) : name}-dlq${fifo ? '.fifo' : ''}`;
    const created = await client.send(new CreateQueueCommand({
      QueueName: deadLetterName,
      Attributes: { ...fifoAttribute(deadLetterName), ...options.deadLetter.attributes },
    }));
    deadLetterQueueUrl = created.QueueUrl!;
    const { Attributes } = await client.send(new GetQueueAttributesCommand({ QueueUrl: deadLetterQueueUrl, AttributeNames: ['QueueArn'] }));
    attributes['RedrivePolicy'] = JSON.stringify({ deadLetterTargetArn: Attributes?.QueueArn, maxReceiveCount: options.deadLetter.maxReceiveCount });
  }
  const { QueueUrl } = await client.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
  return { queueUrl: QueueUrl!, ...(deadLetterQueueUrl === undefined ? {} : { deadLetterQueueUrl }) };
}
