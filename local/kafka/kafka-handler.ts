import type { Context } from 'aws-lambda';
import type { KafkaEvent } from './kafka-event.js';

/**
 * A Lambda handler for Kafka events: `processKafkaBatch` behind a wrapper, or any async function.
 * Its answer is read as Lambda reads it, as JSON: `kafkaBatchResult` says how.
 */
export type KafkaHandler = (event: KafkaEvent, context: Context) => Promise<unknown> | unknown;

