export { sendMessages } from './producer.js';
export type { FailedMessage, OutgoingMessage, SendMessagesOptions, SendMessagesResult, SentMessage } from './producer.js';
