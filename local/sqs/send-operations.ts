import { checkBatch, failedEntry, type FailedEntry } from './batch.js';
import { md5OfAttributes, md5OfBody } from './md5.js';
import { messageSize } from '../../functions/inbox/internal.js';
import { checkMessage, type SendInput } from './message-input.js';
import type { Operation, OperationContext } from './operation-context.js';
import { queueOf } from './operation-context.js';
import type { Queue } from './queue.js';
import { batchRequestTooLong, internalError } from './sqs-errors.js';

function sendOne(queue: Queue, input: SendInput, context: OperationContext): Record<string, unknown> {
  const message = checkMessage(input, queue.settings);
  const result = queue.send(message, context.now());
  // The checksums are of what this request carried: the SDK compares them with its own input,
  // also when a FIFO deduplication id answered an earlier message.
  const output: Record<string, unknown> = { MessageId: result.messageId, MD5OfMessageBody: md5OfBody(message.body) };
  const attributesMd5 = md5OfAttributes(message.attributes);
  if (attributesMd5 !== undefined) output['MD5OfMessageAttributes'] = attributesMd5;
  const systemMd5 = md5OfAttributes(message.systemAttributes);
  if (systemMd5 !== undefined) output['MD5OfMessageSystemAttributes'] = systemMd5;
  if (result.sequenceNumber !== undefined) output['SequenceNumber'] = result.sequenceNumber;
  return output;
}

// The size SQS counts for a whole batch, read leniently: entries with bad content are refused one by one later.
function rawSize(entry: Readonly<Record<string, unknown>>): number {
  const body = typeof entry['MessageBody'] === 'string' ? entry['MessageBody'] : '';
  const given = entry['MessageAttributes'];
  const stored: Record<string, { DataType: string; StringValue?: string; BinaryValue?: Buffer }> = {};
  for (const [name, value] of Object.entries(typeof given === 'object' && given !== null ? given as Record<string, Record<string, unknown>> : {})) {
    const dataType = typeof value?.['DataType'] === 'string' ? value['DataType'] : '';
    if (typeof value?.['BinaryValue'] === 'string') stored[name] = { DataType: dataType, BinaryValue: Buffer.from(value['BinaryValue'], 'base64') };
    else stored[name] = { DataType: dataType, StringValue: typeof value?.['StringValue'] === 'string' ? value['StringValue'] : '' };
  }
  return messageSize(body, stored);
}

export const sendMessage: Operation = (input, context) => sendOne(queueOf(input, context), input, context);

export const sendMessageBatch: Operation = (input, context) => {
  const queue = queueOf(input, context);
  const entries = checkBatch(input['Entries'], 'SendMessageBatchRequestEntry');
  const total = entries.reduce((sum, entry) => sum + rawSize(entry), 0);
  if (total > queue.settings.maximumMessageSize) throw batchRequestTooLong(queue.settings.maximumMessageSize, total);
  const successful: Record<string, unknown>[] = [];
  const failed: FailedEntry[] = [];
  for (const entry of entries) {
    try {
      const body = typeof entry['MessageBody'] === 'string' ? entry['MessageBody'] : '';
      if (context.faults.failSendEntry?.({ queueName: queue.name, id: entry.Id, body }) === true) {
        context.faultCounts.failedSendEntries += 1;
        throw internalError();
      }
      successful.push({ Id: entry.Id, ...sendOne(queue, entry as SendInput, context) });
    } catch (error) {
      failed.push(failedEntry(entry.Id, error));
    }
  }
  return { Successful: successful, Failed: failed };
};
