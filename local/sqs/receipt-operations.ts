import { checkBatch, failedEntry, type FailedEntry } from './batch.js';
import type { Input, Operation, OperationContext } from './operation-context.js';
import { queueOf } from './operation-context.js';
import { checkVisibilityTimeout, type Queue } from './queue.js';
import { parseReceiptHandle } from './receipt-handle.js';
import { internalError, missingParameter, receiptHandleIsInvalid } from './sqs-errors.js';

// The message a handle names in this queue; a handle of another queue or no handle at all is ReceiptHandleIsInvalid.
function messageIdOf(queue: Queue, handle: unknown): string {
  if (handle === undefined || handle === null || handle === '') throw missingParameter('ReceiptHandle');
  const parts = parseReceiptHandle(handle);
  if (parts === undefined || parts.queueName !== queue.name) throw receiptHandleIsInvalid(String(handle));
  return parts.messageId;
}

function deleteOne(queue: Queue, entry: Input, context: OperationContext): void {
  const handle = entry['ReceiptHandle'];
  const messageId = messageIdOf(queue, handle);
  const body = queue.bodyOf(messageId);
  if (body !== undefined && context.faults.failDeleteEntry?.({ queueName: queue.name, messageId, body }) === true) {
    context.faultCounts.failedDeleteEntries += 1;
    throw internalError();
  }
  queue.delete(messageId, handle as string, context.now());
}

function changeOne(queue: Queue, entry: Input, context: OperationContext): void {
  const handle = entry['ReceiptHandle'];
  const messageId = messageIdOf(queue, handle);
  if (entry['VisibilityTimeout'] === undefined || entry['VisibilityTimeout'] === null) throw missingParameter('VisibilityTimeout');
  queue.changeVisibility(messageId, handle as string, checkVisibilityTimeout(entry['VisibilityTimeout']), context.now());
}

function eachEntry(queue: Queue, input: Input, entryName: string, context: OperationContext, apply: typeof deleteOne) {
  const successful: { Id: string }[] = [];
  const failed: FailedEntry[] = [];
  for (const entry of checkBatch(input['Entries'], entryName)) {
    try {
      apply(queue, entry, context);
      successful.push({ Id: entry.Id });
    } catch (error) {
      failed.push(failedEntry(entry.Id, error));
    }
  }
  return { Successful: successful, Failed: failed };
}

export const deleteMessage: Operation = (input, context) => {
  deleteOne(queueOf(input, context), input, context);
  return {};
};

export const deleteMessageBatch: Operation = (input, context) =>
  eachEntry(queueOf(input, context), input, 'DeleteMessageBatchRequestEntry', context, deleteOne);

export const changeMessageVisibility: Operation = (input, context) => {
  changeOne(queueOf(input, context), input, context);
  return {};
};

export const changeMessageVisibilityBatch: Operation = (input, context) =>
  eachEntry(queueOf(input, context), input, 'ChangeMessageVisibilityBatchRequestEntry', context, changeOne);
