export { localSqsClient } from './client.js';
export { createQueue } from './create-queue.js';
export type { CreatedQueue, CreateQueueOptions } from './create-queue.js';
export type { FaultCall, FaultCounts, FaultDeleteEntry, FaultMessage, FaultSendEntry, SqsFaults } from './faults.js';
export { md5OfAttributes, md5OfBody } from './md5.js';
export { RedriveError, redriveDeadLetters } from './redrive-dead-letters.js';
export type { RedriveOptions, RedriveResult } from './redrive-dead-letters.js';
export { startSqs } from './server.js';
export type { RunningSqs, SqsStats, StartSqsOptions } from './server.js';
