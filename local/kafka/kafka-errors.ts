import { LocalStackError } from '../errors.js';

/**
 * Base of what the local Kafka log refuses, each named after the broker error it stands for.
 *
 * @example
 * ```ts
 * try { await log.produce('orders', { value: 'x' }); } catch (error) { if (error instanceof KafkaLogError) console.warn(error.message); }
 * ```
 */
export class KafkaLogError extends LocalStackError {
  public constructor(message: string) {
    super(message);
    this.name = 'KafkaLogError';
  }
}

/**
 * The topic does not exist (the local log never creates one on first use), or it has no such
 * partition: Kafka's UNKNOWN_TOPIC_OR_PARTITION.
 *
 * @example
 * ```ts
 * await expect(log.produce('nope', { value: 'x' })).rejects.toBeInstanceOf(UnknownTopicOrPartitionError);
 * ```
 */
export class UnknownTopicOrPartitionError extends KafkaLogError {
  public constructor(topic: string, partition?: number) {
    super(partition === undefined
      ? `Topic "${topic}" does not exist: create it with createTopic() first.`
      : `Topic "${topic}" has no partition ${partition}.`);
    this.name = 'UnknownTopicOrPartitionError';
  }
}

/**
 * The record is larger than the broker accepts (Kafka's MESSAGE_TOO_LARGE); nothing was stored.
 *
 * @example
 * ```ts
 * await expect(log.produce('orders', { value: Buffer.alloc(2_000_000) })).rejects.toBeInstanceOf(RecordTooLargeError);
 * ```
 */
export class RecordTooLargeError extends KafkaLogError {
  public constructor(size: number, limit: number) {
    super(`The record is ${size} bytes, over the broker's limit of ${limit} bytes (message.max.bytes): send a smaller value.`);
    this.name = 'RecordTooLargeError';
  }
}

/**
 * The record was stored, but its acknowledgement was lost on the way back, as a request timeout
 * is to a producer: a producer that retries (without idempotence) stores it a second time.
 *
 * @example
 * ```ts
 * catch (error) { if (error instanceof ProduceAckLostError) await log.produce(topic, message); }
 * ```
 */
export class ProduceAckLostError extends KafkaLogError {
  public constructor(topic: string, partition: number) {
    super(`The acknowledgement of a record produced to ${topic}-${partition} was lost; the record may be stored. Retry the send.`);
    this.name = 'ProduceAckLostError';
  }
}
