// Lambda's Kafka event as the kit reads it (the SQS side takes its types from aws-lambda).
export { kafkaHeader, kafkaPartitionOf, kafkaValue } from './kafka-event.js';
export type { KafkaBatchResponse, KafkaEvent, KafkaItemIdentifier, KafkaRecord } from './kafka-event.js';
