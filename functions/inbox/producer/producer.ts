import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { awsErrorSummary, isRetryableAwsError } from '../aws-errors.js';
import { AWS_LIMITS } from '../aws-limits.js';
import { InboxConfigError } from '../errors.js';
import { retryEntries, type EntryAnswer } from '../retry.js';
import { withDefaults } from '../with-defaults.js';
import { loadOtel } from '../trace/otel-api.js';
import { batches } from './batches.js';
import { prepare, type Prepared } from './outgoing-entry.js';
import type { FailedMessage, OutgoingMessage, SendMessagesOptions, SendMessagesResult, SentMessage } from './types.js';

export type { FailedMessage, OutgoingMessage, SendMessagesOptions, SendMessagesResult, SentMessage } from './types.js';

const PRODUCER_DEFAULTS = { maxAttempts: 4, baseDelayMs: 50, maxDelayMs: 2000, maxBatchBytes: AWS_LIMITS.sqs.batchBytes } as const;
const MESSAGE_BYTES = AWS_LIMITS.sqs.messageBytes;
type Failure = { code: string; message: string };
type Answer = EntryAnswer<Pick<SentMessage, 'messageId' | 'sequenceNumber'>, Failure>;

/**
 * One SendMessageBatch call, answered entry by entry: taken, refused as the sender's fault, or to
 * be sent again (SQS failed it on its side, left it out of both lists, or the call failed in a
 * retryable way). A call refused as a whole in a way that cannot change refuses every entry.
 */
async function sendBatch(client: SQSClient, queueUrl: string, pending: readonly Prepared[]): Promise<Answer[]> {
  try {
    const response = await client.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: pending.map((item) => item.entry) }));
    const answers = new Map<string, Answer>();
    for (const success of response.Successful ?? []) {
      answers.set(success.Id ?? '', { kind: 'done', value: { messageId: success.MessageId ?? '', ...(success.SequenceNumber ? { sequenceNumber: success.SequenceNumber } : {}) } });
    }
    for (const failure of response.Failed ?? []) {
      const summary = { code: failure.Code ?? 'InternalError', message: failure.Message ?? '' };
      answers.set(failure.Id ?? '', failure.SenderFault ? { kind: 'failed', failure: summary } : { kind: 'retry', failure: summary });
    }
    // An entry in neither list was not acknowledged: send it again, the key makes that harmless.
    return pending.map((item) => answers.get(item.entry.Id!) ?? { kind: 'retry', failure: { code: 'InternalError', message: 'not acknowledged' } });
  } catch (error) {
    const failure = awsErrorSummary(error);
    return pending.map(() => (isRetryableAwsError(error) ? { kind: 'retry', failure } : { kind: 'failed', failure }));
  }
}

/**
 * Sends messages to an SQS queue so that a consumer behind `inbox()` applies each exactly once: every
 * message carries a stable idempotency key (the caller's, or a new UUIDv7) as the `idempotency-key`
 * string attribute and, on a FIFO queue (URL ending in `.fifo`), as MessageDeduplicationId (its
 * sha-256 when the key is not a valid one). Messages go in order in batches of at most 10 entries
 * and 1 MiB (SQS's limits since 2025); entries SQS failed on its side, and batches whose call failed in a retryable way,
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
  if (!Number.isInteger(maxBatchBytes) || maxBatchBytes < MESSAGE_BYTES.min || maxBatchBytes > AWS_LIMITS.sqs.batchBytes) {
    throw new InboxConfigError(`maxBatchBytes must be a whole number from ${MESSAGE_BYTES.min} to ${AWS_LIMITS.sqs.batchBytes}, but ${String(maxBatchBytes)} was given.`);
  }
  const fifo = queueUrl.endsWith('.fifo');
  await loadOtel();
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

  const limits = { maxEntries: AWS_LIMITS.sqs.batchEntries, maxBytes: maxBatchBytes, ordered: fifo };
  const policy = { attempts: maxAttempts, backoff: { baseMs: baseDelayMs, maxMs: maxDelayMs } };
  for (const batch of batches(ready, limits, (item) => item.size, (item) => item.entry.MessageGroupId)) {
    const results = await retryEntries(batch, (pending) => sendBatch(client, queueUrl, pending), policy);
    for (const { entry: item, value } of results.done) sent.push({ index: item.index, key: item.key, ...value });
    for (const { entry: item, failure, attempts } of results.failed) failed.push({ index: item.index, key: item.key, ...failure, senderFault: true, attempts });
    for (const { entry: item, failure, attempts } of results.left) failed.push({ index: item.index, key: item.key, ...failure, senderFault: false, attempts });
  }
  sent.sort((a, b) => a.index - b.index);
  failed.sort((a, b) => a.index - b.index);
  return { keys, sent, failed };
}
