import type { FaultCounts, SqsFaults } from './faults.js';
import type { MoveTasks } from './move-tasks.js';
import type { Queue } from './queue.js';
import type { Queues } from './queues.js';
import { missingParameter } from './sqs-errors.js';

/** A request body of the JSON protocol: the operation's input members. */
export type Input = Readonly<Record<string, unknown>>;

/** What every operation is handed besides its input. */
export interface OperationContext {
  readonly queues: Queues;
  readonly moveTasks: MoveTasks;
  readonly accountId: string;
  readonly region: string;
  /** The emulator's clock, in milliseconds since the epoch. */
  now(): number;
  readonly faults: SqsFaults;
  readonly faultCounts: FaultCounts;
  /** How often a waiting long poll looks again, for visibility timeouts that run out on the clock. */
  readonly pollIntervalMs: number;
  /** Aborted when the caller hangs up or the server closes: a long poll then ends without receiving. */
  readonly signal: AbortSignal;
}

/** An operation: its input in, its output out, or an SqsError thrown. */
export type Operation = (input: Input, context: OperationContext) => Promise<Record<string, unknown>> | Record<string, unknown>;

/** The queue an input's QueueUrl names, or MissingParameter / QueueDoesNotExist. */
export function queueOf(input: Input, context: OperationContext): Queue {
  const url = input['QueueUrl'];
  if (typeof url !== 'string' || url === '') throw missingParameter('QueueUrl');
  return context.queues.byUrl(url);
}
