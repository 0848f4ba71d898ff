import {
  ChangeMessageVisibilityBatchCommand, DeleteMessageBatchCommand, GetQueueAttributesCommand, ReceiveMessageCommand, type SQSClient,
} from '@aws-sdk/client-sqs';
import { InboxConfigError } from '../errors.js';
import { sendMessages } from '../producer/producer.js';
import { dlqMessage, type DlqKeyKind, type DlqMessage } from './dlq-message.js';

/** Options of `redriveDlq`. */
export interface RedriveDlqOptions {
  readonly client: SQSClient;
  /** The dead-letter queue the messages are taken from. */
  readonly dlqUrl: string;
  /** The consumer's queue they go back to (the DLQ's source). */
  readonly queueUrl: string;
  /**
   * At most this many messages are handled (moved or left).
   * @default every message the DLQ gives
   */
  readonly limit?: number;
  /**
   * Moves `unkeyed` messages too, under a key of their own (their messageId in the DLQ): a message
   * the inbox applied before it was dead-lettered is then applied again.
   * @default false
   */
  readonly includeUnkeyed?: boolean;
  /**
   * Runs after a batch's sends and before their deletes from the DLQ (the command line's audit row).
   * @default nothing
   */
  readonly onMoved?: (moved: readonly MovedMessage[]) => Promise<void>;
  /**
   * Told how many messages were handled so far, after each batch.
   * @default nothing
   */
  readonly onProgress?: (handled: number) => void;
}

/** A message sent back to its queue and deleted from the DLQ. */
export interface MovedMessage {
  readonly messageId: string;
  readonly key: string;
  readonly kind: DlqKeyKind;
  /** Its messageId in the queue it went back to. */
  readonly sentAs: string;
}

/**
 * A message left in the DLQ: `unkeyed` (not asked for), `group-held` (an earlier message of its FIFO
 * group stayed, and it may not overtake it), `send-failed`, or `not-deleted` (sent, but the DLQ
 * kept it: a later redrive sends it again, as a duplicate of the same key).
 */
export interface LeftMessage {
  readonly messageId: string;
  readonly key: string;
  readonly kind: DlqKeyKind;
  readonly reason: 'unkeyed' | 'group-held' | 'send-failed' | 'not-deleted';
  readonly error?: string;
}

/** What a redrive did. */
export interface RedriveDlqReport {
  readonly moved: readonly MovedMessage[];
  readonly left: readonly LeftMessage[];
}

/** What a DLQ holds, by what a move does to each message's key. */
export interface DlqSurvey {
  /** ApproximateNumberOfMessages of the DLQ. */
  readonly approximate: number;
  /** Messages looked at (at most the limit); each kind's count is of these. */
  readonly seen: number;
  readonly keyed: number;
  readonly pinned: number;
  readonly unkeyed: number;
}

/** Messages looked at by a survey at most, whatever the limit. */
const SURVEY_MAX = 1000;
/** A move holds a batch this long: enough for its sends, retries and deletes. */
const HOLD_SECONDS = 120;

interface DlqQueue {
  readonly arn: string;
  readonly approximate: number;
  readonly fifo: boolean;
}

async function dlqOf(client: SQSClient, dlqUrl: string, queueUrl: string): Promise<DlqQueue> {
  if (dlqUrl === queueUrl) throw new InboxConfigError(`The DLQ and the queue are the same (${dlqUrl}): give the consumer's queue as the queue, its DLQ as the DLQ.`);
  const fifo = dlqUrl.endsWith('.fifo');
  if (fifo !== queueUrl.endsWith('.fifo')) throw new InboxConfigError(`${dlqUrl} and ${queueUrl} are not both FIFO or both standard: a FIFO queue's DLQ is FIFO, give the DLQ of this queue.`);
  const { Attributes } = await client.send(new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn', 'ApproximateNumberOfMessages'] }));
  return { arn: Attributes?.QueueArn ?? '', approximate: Number(Attributes?.ApproximateNumberOfMessages ?? 0), fifo };
}

async function receive(client: SQSClient, dlq: DlqQueue, dlqUrl: string, max: number, holdSeconds: number): Promise<DlqMessage[]> {
  // A wait of a second asks every SQS server, so an empty answer means the DLQ has nothing visible left.
  const { Messages } = await client.send(new ReceiveMessageCommand({
    QueueUrl: dlqUrl, MaxNumberOfMessages: Math.min(10, max), VisibilityTimeout: holdSeconds, WaitTimeSeconds: 1,
    MessageSystemAttributeNames: ['All'], MessageAttributeNames: ['All'],
  }));
  return (Messages ?? []).map((message) => dlqMessage(message, dlq.arn));
}

/** Makes held messages visible again at once, so the DLQ is as it was. */
async function release(client: SQSClient, dlqUrl: string, messages: readonly DlqMessage[]): Promise<void> {
  for (let at = 0; at < messages.length; at += 10) {
    await client.send(new ChangeMessageVisibilityBatchCommand({
      QueueUrl: dlqUrl,
      Entries: messages.slice(at, at + 10).map((message, index) => ({ Id: String(index), ReceiptHandle: message.receiptHandle, VisibilityTimeout: 0 })),
    }));
  }
}

/**
 * Looks at up to `limit` (at most 1000) messages of a DLQ and counts them by what a move does to
 * their key, then makes them visible again: it changes no message (their receive counts grow).
 * A FIFO DLQ shows at most the first ten of a group while they are held, so a survey of one sees
 * those and the approximate total.
 *
 * @example
 * ```ts
 * const survey = await surveyDlq(client, dlqUrl, queueUrl); // { approximate: 40, seen: 40, keyed: 31, pinned: 9, unkeyed: 0 }
 * ```
 */
export async function surveyDlq(client: SQSClient, dlqUrl: string, queueUrl: string, limit = SURVEY_MAX): Promise<DlqSurvey> {
  const dlq = await dlqOf(client, dlqUrl, queueUrl);
  const seen = new Map<string, DlqMessage>();
  const max = Math.min(limit, SURVEY_MAX);
  try {
    while (seen.size < max) {
      const batch = (await receive(client, dlq, dlqUrl, max - seen.size, 30)).filter((message) => !seen.has(message.messageId));
      if (batch.length === 0) break;
      for (const message of batch) seen.set(message.messageId, message);
    }
  } finally {
    await release(client, dlqUrl, [...seen.values()]);
  }
  const count = (kind: DlqKeyKind) => [...seen.values()].filter((message) => message.kind === kind).length;
  return { approximate: dlq.approximate, seen: seen.size, keyed: count('keyed'), pinned: count('pinned'), unkeyed: count('unkeyed') };
}

/** Sends messages back with their key, group and attributes through the kit's producer; the messageId each got, or why not. */
async function sendBack(client: SQSClient, queueUrl: string, messages: readonly DlqMessage[]): Promise<({ sentAs: string } | { error: string })[]> {
  const { sent, failed } = await sendMessages(client, queueUrl, messages.map((message) => ({
    body: message.body,
    key: message.key,
    attributes: message.attributes,
    ...(message.groupId === undefined ? {} : { groupId: message.groupId }),
    // Its id in the DLQ: the same when a redrive that crashed sends it again (FIFO drops that copy),
    // a new one each time it is dead-lettered again.
    deduplicationId: message.messageId,
  })), { maxBatchBytes: 1_048_576 });
  return messages.map((_, index) => {
    const ok = sent.find((entry) => entry.index === index);
    if (ok !== undefined) return { sentAs: ok.messageId };
    const bad = failed.find((entry) => entry.index === index);
    return { error: `${bad?.code ?? 'Unknown'}: ${bad?.message ?? 'not sent'}` };
  });
}

/** Deletes moved messages from the DLQ; answers the ids the DLQ did not delete. */
async function deleteMoved(client: SQSClient, dlqUrl: string, moved: readonly DlqMessage[]): Promise<Map<string, string>> {
  const notDeleted = new Map<string, string>();
  for (let at = 0; at < moved.length; at += 10) {
    const chunk = moved.slice(at, at + 10);
    const { Failed } = await client.send(new DeleteMessageBatchCommand({
      QueueUrl: dlqUrl, Entries: chunk.map((message, index) => ({ Id: String(index), ReceiptHandle: message.receiptHandle })),
    }));
    for (const failure of Failed ?? []) notDeleted.set(chunk[Number(failure.Id)]!.messageId, `${failure.Code ?? 'Unknown'}: ${failure.Message ?? ''}`);
  }
  return notDeleted;
}

/**
 * One received batch, in its order: which go, and which stay. On FIFO each goes on its own, and a
 * group stays whole behind its first message that stays; on a standard queue the batch goes in one call.
 */
async function moveBatch(batch: readonly DlqMessage[], options: RedriveDlqOptions, held: Set<string>, fifo: boolean): Promise<{ moved: (DlqMessage & { sentAs: string })[]; left: LeftMessage[] }> {
  const moved: (DlqMessage & { sentAs: string })[] = [];
  const left: LeftMessage[] = [];
  const stay = (message: DlqMessage, reason: LeftMessage['reason'], error?: string) => {
    left.push({ messageId: message.messageId, key: message.key, kind: message.kind, reason, ...(error === undefined ? {} : { error }) });
    if (message.groupId !== undefined) held.add(message.groupId);
  };
  const send = async (messages: readonly DlqMessage[]) => {
    const answers = await sendBack(options.client, options.queueUrl, messages);
    messages.forEach((message, index) => {
      const answer = answers[index]!;
      if ('sentAs' in answer) moved.push({ ...message, sentAs: answer.sentAs });
      else stay(message, 'send-failed', answer.error);
    });
  };
  const going: DlqMessage[] = [];
  for (const message of batch) {
    if (message.groupId !== undefined && held.has(message.groupId)) stay(message, 'group-held');
    else if (message.kind === 'unkeyed' && options.includeUnkeyed !== true) stay(message, 'unkeyed');
    else if (fifo) await send([message]);
    else going.push(message);
  }
  if (going.length > 0) await send(going);
  return { moved, left };
}

/**
 * Moves a consumer's dead-lettered messages back to its queue so that none comes back under a new
 * key, as SQS's own redrive (StartMessageMoveTask) does to a message keyed by its messageId. Each
 * message goes through the kit's producer with the same body, message attributes and FIFO group,
 * and the key its consumer saw (`dlqMessage`): a `keyed` message keeps its attribute or envelope
 * key, a `pinned` one gets its messageId as the `idempotency-key` attribute, and an `unkeyed` one
 * (its FIFO deduplication id gone) stays unless `includeUnkeyed`. A message is deleted from the DLQ
 * only after its send succeeded; a FIFO group's messages go in order, and none after one that stays.
 * Run again after a crash, it sends again what was sent but not deleted: under the same key, so the
 * inbox drops it as a duplicate (and a FIFO queue within five minutes, by its deduplication id).
 * Messages left are made visible again at the end.
 *
 * @example
 * ```ts
 * // `sqs-inbox dlq redrive --dlq-url ... --queue-url ... --yes` runs it:
 * const { moved, left } = await redriveDlq({ client: new SQSClient({}), dlqUrl, queueUrl });
 * if (left.length > 0) console.error(`${left.length} stayed in the DLQ: ${left[0]!.reason}`);
 * ```
 */
export async function redriveDlq(options: RedriveDlqOptions): Promise<RedriveDlqReport> {
  const { client, dlqUrl } = options;
  const dlq = await dlqOf(client, dlqUrl, options.queueUrl);
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const held = new Set<string>();
  const moved: MovedMessage[] = [];
  const left: LeftMessage[] = [];
  const leftMessages: DlqMessage[] = [];
  const leftIds = new Set<string>();
  try {
    while (moved.length + left.length < limit) {
      const received = await receive(client, dlq, dlqUrl, limit - moved.length - left.length, HOLD_SECONDS);
      // A message left earlier coming round again (held anew, so released again at the end): the DLQ has nothing new to give.
      leftMessages.push(...received.filter((message) => leftIds.has(message.messageId)));
      const batch = received.filter((message) => !leftIds.has(message.messageId));
      if (batch.length === 0) break;
      const done = await moveBatch(batch, options, held, dlq.fifo);
      const movedNow = done.moved.map(({ messageId, key, kind, sentAs }) => ({ messageId, key, kind, sentAs }));
      if (movedNow.length > 0) await options.onMoved?.(movedNow);
      const notDeleted = await deleteMoved(client, dlqUrl, done.moved);
      moved.push(...movedNow.filter((message) => !notDeleted.has(message.messageId)));
      left.push(...done.left, ...movedNow.filter((message) => notDeleted.has(message.messageId))
        .map(({ messageId, key, kind }) => ({ messageId, key, kind, reason: 'not-deleted' as const, error: notDeleted.get(messageId)! })));
      for (const stayed of left) leftIds.add(stayed.messageId);
      leftMessages.push(...batch.filter((message) => leftIds.has(message.messageId)));
      options.onProgress?.(moved.length + left.length);
    }
  } finally {
    await release(client, dlqUrl, leftMessages);
  }
  return { moved, left };
}
