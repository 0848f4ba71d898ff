export { batchResult } from './batch-result.js';
export type { BatchResult, Invocation } from './batch-result.js';
export { startEventSource } from './event-source.js';
export type { BatchReport, EventSourceHandler, EventSourceStats, RunningEventSource, StartEventSourceOptions } from './event-source.js';
export { FUNCTION_NAME, lambdaContext } from './lambda-context.js';
export type { LambdaContextInit } from './lambda-context.js';
export { toSqsRecord } from './sqs-event.js';
export type { EventSourceQueue } from './sqs-event.js';
