// A received message as Lambda's SQS record: the kit's own reading, shared with the operator's DLQ redrive.
export { toSqsRecord } from '../../functions/inbox/internal.js';
export type { EventSourceQueue } from '../../functions/inbox/internal.js';
