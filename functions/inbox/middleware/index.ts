export { inbox } from './sqs-middleware.js';
export { kafkaInbox } from './kafka-middleware.js';
