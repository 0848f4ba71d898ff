import { cancelMessageMoveTask, listMessageMoveTasks, startMessageMoveTask } from './move-task-operations.js';
import type { Operation } from './operation-context.js';
import { createQueue, getQueueAttributes, getQueueUrl, purgeQueue } from './queue-operations.js';
import { changeMessageVisibility, changeMessageVisibilityBatch, deleteMessage, deleteMessageBatch } from './receipt-operations.js';
import { receiveMessage } from './receive-operation.js';
import { sendMessage, sendMessageBatch } from './send-operations.js';

/** The operations the emulator serves, by the name after `AmazonSQS.` in `X-Amz-Target`. */
export const OPERATIONS: Readonly<Record<string, Operation>> = {
  CreateQueue: createQueue,
  GetQueueUrl: getQueueUrl,
  GetQueueAttributes: getQueueAttributes,
  PurgeQueue: purgeQueue,
  SendMessage: sendMessage,
  SendMessageBatch: sendMessageBatch,
  ReceiveMessage: receiveMessage,
  DeleteMessage: deleteMessage,
  DeleteMessageBatch: deleteMessageBatch,
  ChangeMessageVisibility: changeMessageVisibility,
  ChangeMessageVisibilityBatch: changeMessageVisibilityBatch,
  StartMessageMoveTask: startMessageMoveTask,
  ListMessageMoveTasks: listMessageMoveTasks,
  CancelMessageMoveTask: cancelMessageMoveTask,
};
