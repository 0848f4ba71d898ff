import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { InboxConfigError } from '../errors.js';
import { backoffDelay, sleep } from '../retry.js';
import { withDefaults } from '../with-defaults.js';
import { batches } from './batches.js';
import { prepare, type Prepared } from './outgoing-entry.js';
import type { FailedMessage, OutgoingMessage, SendMessagesOptions, SendMessagesResult, SentMessage } from './types.js';

export type { FailedMessage, OutgoingMessage, SendMessagesOptions, SendMessagesResult, SentMessage } from './types.js';

const PRODUCER_DEFAULTS = { maxAttempts: 4, baseDelayMs: 50, maxDelayMs: 2000, maxBatchBytes: 262_144 } as const;
const THROTTLING = /Throttl|RequestThrottled|OverLimit|SlowDown/;

function isRetryable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return true;
  const details = error as { $fault?: string; $retryable?: unknown; $metadata?: { httpStatusCode?: number }; name?: string };
  if (details.$retryable !== undefined || details.$fault === 'server') return true;
  if (THROTTLING.test(details.name ?? '')) return true;
  // No HTTP status: the call never got an answer (a network error), so it may succeed again.
  return details.$metadata?.httpStatusCode === undefined;
}

function errorSummary(error: unknown): { code: string; message: string } {
  if (error instanceof Error) return { code: error.name, message: error.message };
  return { code: 'Error', message: String(error) };
}

/**
 * Sends messages to an SQS queue so that a consumer behind `inbox()` applies each exactly once: every
 * message carries a stable idempotency key (the caller's, or a new UUIDv7) as the `idempotency-key`
 * string attribute and, on a FIFO queue (URL ending in `.fifo`), as MessageDeduplicationId (its
 * sha-256 when the key is not a valid one). Messages go in order in batches of at most 10 entries
 * and 256 KiB; entries SQS failed on its side, and batches whose call failed in a retryable way,
 * are sent again with the same keys, with jittered backoff, up to `maxAttempts`. A message that
 * cannot be sent ends in `failed` with the reason; nothing is thrown for a message's content.
 * Batches go one after another, a batch's retries before the next batch, and on FIFO a batch holds
 * at most one message of each group, so a group keeps its order through retries (a FIFO workload of
 * one group goes one message a call).
 *
 * @example
 * ```ts
 * const { keys, failed } = await sendMessages(client, queueUrl, orders.map((order) => ({ body: order, groupId: order.customerId })));
 * if (failed.length > 0) throw new Error(`${failed.length} orders not sent: ${failed[0]!.message}`);
 * ```
 */
export async function sendMessages(
  client: SQSClient,
  queueUrl: string,
  messages: readonly OutgoingMessage[],
  options: SendMessagesOptions = {},
): Promise<SendMessagesResult> {
  const { maxAttempts, baseDelayMs, maxDelayMs, maxBatchBytes } = withDefaults(PRODUCER_DEFAULTS, options);
  if (!client || typeof client.send !== 'function') throw new InboxConfigError('sendMessages needs an SQSClient.');
  if (typeof queueUrl !== 'string' || queueUrl === '') throw new InboxConfigError('sendMessages needs the queue URL.');
  if (!Array.isArray(messages)) throw new InboxConfigError('sendMessages takes an array of messages.');
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1 || maxAttempts > 20) throw new InboxConfigError(`maxAttempts must be a whole number from 1 to 20, but ${String(maxAttempts)} was given.`);
  if (!Number.isInteger(maxBatchBytes) || maxBatchBytes < 1024 || maxBatchBytes > 1_048_576) {
    throw new InboxConfigError(`maxBatchBytes must be a whole number from 1024 to 1048576, but ${String(maxBatchBytes)} was given.`);
  }
  const fifo = queueUrl.endsWith('.fifo');
  const keys: string[] = [];
  const sent: SentMessage[] = [];
  const failed: FailedMessage[] = [];
  const ready: Prepared[] = [];
  messages.forEach((message, index) => {
    const prepared = prepare(message, index, fifo, maxBatchBytes);
    keys.push(prepared.key);
    if ('entry' in prepared) ready.push(prepared);
    else failed.push({ ...prepared, attempts: 0 });
  });

  for (const batch of batches(ready, maxBatchBytes, fifo)) {
    let pending = batch;
    let lastError: { code: string; message: string } = { code: 'InternalError', message: 'not sent' };
    for (let attempt = 1; pending.length > 0; attempt += 1) {
      const byId = new Map(pending.map((item) => [item.entry.Id!, item]));
      const retry: Prepared[] = [];
      try {
        const response = await client.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: pending.map((item) => item.entry) }));
        for (const success of response.Successful ?? []) {
          const item = byId.get(success.Id ?? '');
          if (item === undefined) continue;
          byId.delete(item.entry.Id!);
          sent.push({ index: item.index, key: item.key, messageId: success.MessageId ?? '', ...(success.SequenceNumber ? { sequenceNumber: success.SequenceNumber } : {}) });
        }
        for (const failure of response.Failed ?? []) {
          const item = byId.get(failure.Id ?? '');
          if (item === undefined) continue;
          byId.delete(item.entry.Id!);
          lastError = { code: failure.Code ?? 'InternalError', message: failure.Message ?? '' };
          if (failure.SenderFault) failed.push({ index: item.index, key: item.key, ...lastError, senderFault: true, attempts: attempt });
          else retry.push(item);
        }
        // An entry in neither list was not acknowledged: send it again, the key makes that harmless.
        retry.push(...byId.values());
      } catch (error) {
        lastError = errorSummary(error);
        if (!isRetryable(error)) {
          failed.push(...pending.map((item) => ({ index: item.index, key: item.key, ...lastError, senderFault: true, attempts: attempt })));
          break;
        }
        retry.push(...pending);
      }
      if (retry.length > 0 && attempt >= maxAttempts) {
        failed.push(...retry.map((item) => ({ index: item.index, key: item.key, ...lastError, senderFault: false, attempts: attempt })));
        break;
      }
      pending = retry.sort((a, b) => a.index - b.index);
      if (pending.length > 0) await sleep(backoffDelay(attempt, { baseMs: baseDelayMs, maxMs: maxDelayMs }));
    }
  }
  sent.sort((a, b) => a.index - b.index);
  failed.sort((a, b) => a.index - b.index);
  return { keys, sent, failed };
}
