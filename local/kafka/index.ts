/**
 * Lambda's Kafka event sources (Amazon MSK and self-managed Kafka) on one machine: a partitioned
 * log standing in for the cluster (no broker: Lambda, not the function, speaks the Kafka protocol),
 * the event source mapping's poller with its batching, commits, retries and on-failure destination,
 * and the faults that show a consumer copes: double delivery on a rebalance, lost responses, crashes.
 *
 * @example
 * ```ts
 * import { KafkaLog, startKafkaEventSource } from './local/kafka/index.js';
 *
 * const log = new KafkaLog();
 * log.createTopic('orders', { partitions: 3 });
 * log.createTopic('orders-failed');
 * await log.produce('orders', { key: 'order-1', value: JSON.stringify({ orderId: 'order-1' }), headers: { 'idempotency-key': 'ship-order-1' } });
 * const source = startKafkaEventSource({
 *   log,
 *   topic: 'orders',
 *   handler: async (event) => ({ batchItemFailures: [] }),
 *   pollers: 3,
 *   maxBatchingWindowMs: 0,
 *   maximumRetryAttempts: 3,
 *   onFailureDestination: { type: 'kafka', topic: 'orders-failed' },
 *   faults: { deliverTwice: (batch) => batch.attempt === 1 && Math.random() < 0.02 },
 * });
 * // ... later
 * await source.stop();
 * source.committedOffsets(); // { 'orders-0': 1 } or wherever order-1's key hashed
 * ```
 */
export type { KafkaHandler } from './kafka-handler.js';
export { kafkaBatchResult } from './kafka-batch-result.js';
export type { KafkaBatchResult } from './kafka-batch-result.js';
export { KafkaLogError, ProduceAckLostError, RecordTooLargeError, UnknownTopicOrPartitionError } from './kafka-errors.js';
export { javaBytes, partitionKey, toKafkaEvent, toKafkaEventRecord } from './kafka-event.js';
export type { KafkaBatchResponse, KafkaEvent, KafkaEventOrigin, KafkaEventRecord, KafkaItemIdentifier } from './kafka-event.js';
export { startKafkaEventSource } from './kafka-event-source.js';
export type { KafkaBatchReport, KafkaEventSourceStats, RunningKafkaEventSource, StartKafkaEventSourceOptions } from './kafka-event-source.js';
export type { KafkaBatchView, KafkaEventSourceFaults } from './kafka-event-source-types.js';
export { KafkaLog } from './kafka-log.js';
export type { CreateTopicOptions, KafkaLogFaults, KafkaLogOptions, KafkaLogStats, LogRecord, ProduceMessage, ProducedRecord } from './kafka-log.js';
export { kafkaFailureDocument, sqsFailureDocument } from './on-failure-destination.js';
export type { DiscardedRecords, FailedFunction, KafkaOnFailureDestination } from './on-failure-destination.js';
export { partitionForKey } from './partitioner.js';
