import type { Input, Operation } from './operation-context.js';
import { parseMoveTaskHandle } from './move-task-handle.js';
import type { MoveTaskState } from './move-tasks.js';
import { invalidParameter, invalidParameterValue, missingParameter } from './sqs-errors.js';

function requiredString(input: Input, name: string): string {
  const value = input[name];
  if (value === undefined || value === null || value === '') throw missingParameter(name);
  if (typeof value !== 'string') throw invalidParameter(name, value, `${name} must be a string.`);
  return value;
}

// A whole number in [min, max], or undefined when left out. The service documents the ranges
// (MaxNumberOfMessagesPerSecond at most 500, MaxResults at most 10), not the error for a value outside them.
function optionalWhole(input: Input, name: string, min: number, max: number): number | undefined {
  const value = input[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalidParameter(name, value, `Must be a whole number from ${min} to ${max}, if provided.`);
  }
  return value;
}

function render(task: MoveTaskState): Record<string, unknown> {
  const entry: Record<string, unknown> = {
    Status: task.status,
    SourceArn: task.sourceArn,
    ApproximateNumberOfMessagesMoved: task.approximateNumberOfMessagesMoved,
    ApproximateNumberOfMessagesToMove: task.approximateNumberOfMessagesToMove,
    StartedTimestamp: task.startedTimestamp,
  };
  // As the API Reference describes the entry: the handle only while RUNNING, the destination and
  // the rate only when the request gave them, the reason only on FAILED.
  if (task.status === 'RUNNING') entry['TaskHandle'] = task.taskHandle;
  if (task.destinationArn !== undefined) entry['DestinationArn'] = task.destinationArn;
  if (task.maxNumberOfMessagesPerSecond !== undefined) entry['MaxNumberOfMessagesPerSecond'] = task.maxNumberOfMessagesPerSecond;
  if (task.failureReason !== undefined) entry['FailureReason'] = task.failureReason;
  return entry;
}

/** StartMessageMoveTask: SourceArn, optional DestinationArn and MaxNumberOfMessagesPerSecond (1 to 500); answers TaskHandle. */
export const startMessageMoveTask: Operation = (input, context) => {
  const sourceArn = requiredString(input, 'SourceArn');
  const destination = input['DestinationArn'];
  if (destination !== undefined && destination !== null && typeof destination !== 'string') {
    throw invalidParameter('DestinationArn', destination, 'DestinationArn must be a string.');
  }
  const taskHandle = context.moveTasks.start({
    sourceArn,
    destinationArn: typeof destination === 'string' && destination !== '' ? destination : undefined,
    maxNumberOfMessagesPerSecond: optionalWhole(input, 'MaxNumberOfMessagesPerSecond', 1, 500),
  });
  return { TaskHandle: taskHandle };
};

/** ListMessageMoveTasks: the MaxResults (default 1, at most 10) most recent tasks of SourceArn, newest first. */
export const listMessageMoveTasks: Operation = (input, context) => {
  const sourceArn = requiredString(input, 'SourceArn');
  const maxResults = optionalWhole(input, 'MaxResults', 1, 10) ?? 1;
  return { Results: context.moveTasks.list(sourceArn, maxResults).map(render) };
};

/** CancelMessageMoveTask: cancels the RUNNING task a TaskHandle names; answers ApproximateNumberOfMessagesMoved. */
export const cancelMessageMoveTask: Operation = (input, context) => {
  const handle = parseMoveTaskHandle(requiredString(input, 'TaskHandle'));
  if (handle === undefined) throw invalidParameterValue('Value for parameter TaskHandle is invalid.');
  return { ApproximateNumberOfMessagesMoved: context.moveTasks.cancel(handle) };
};
