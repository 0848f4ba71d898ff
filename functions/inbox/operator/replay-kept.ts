import { GetQueueUrlCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { AWS_LIMITS } from '../aws-limits.js';
import type { Database, Transaction } from '../database/database.js';
import { joinedParts, partsOf, valuePart, VALUE_PART_BYTES, VALUE_READ_BYTES } from '../database/value-parts.js';
import { sendMessages } from '../producer/producer.js';
import { sql } from '../sql/sql.js';
import { KeptMessageNotFoundError, KeptReplayRefusedError } from './errors.js';
import { queueOfArn, sendAttributes, type SqsOrigin } from './sqs-origin.js';

/** Options of `replayKept`. */
export interface ReplayKeptOptions {
  /** The client the message is sent with (the kit's producer, `sendMessages`). */
  readonly client: SQSClient;
  /**
   * The queue to send it to.
   * @default the queue it came from, found by its eventSourceARN (GetQueueUrl)
   */
  readonly queueUrl?: string;
  /**
   * Runs in the transaction that starts the replay (or marks it `already-processed`), so a record of
   * it (the command line's audit row) commits with the change or not at all.
   * @default nothing
   */
  readonly audit?: (tx: Transaction, replay: { readonly id: number; readonly consumer: string; readonly key: string }) => Promise<void>;
}

/**
 * What a replay did: `sent` (the queue took it; the consumer applies it once, or keeps it again),
 * `failed` (it did not go: the kept message stays replayable, `error` says why), `already-sent`
 * (an earlier replay went: nothing done), `already-processed` (a message under its key was applied
 * since: nothing sent, the kept message marked as sent).
 */
export type ReplayKeptResult =
  | { readonly kind: 'sent'; readonly key: string; readonly messageId: string }
  | { readonly kind: 'failed'; readonly key: string; readonly error: string }
  | { readonly kind: 'already-sent' | 'already-processed'; readonly key: string };

interface KeptRow {
  consumer_name: string;
  message_key: string;
  kept_as: string;
  source: string;
  body_bytes: number;
  kept_bytes: number;
  /** The kept body's bytes as stored (UTF-8). */
  stored_bytes: number;
  origin: SqsOrigin | string;
  replay_state: string | null;
  replays: number;
}

type Prepared = { kind: 'send'; row: KeptRow; body: string; origin: SqsOrigin; attempt: number } | { kind: 'already-sent' | 'already-processed'; key: string };

function refusal(row: KeptRow): string | undefined {
  if (row.kept_as === 'collision') {
    return 'it is a collision, and its key is held by another body, so it would collide again: find which body is right, and send this one under a new key if it is.';
  }
  if (row.source !== 'sqs') {
    return `it is a Kafka record, and the kit sends to SQS only: produce its value (kept_message.body, base64) to its topic again with the idempotency-key header ${JSON.stringify(row.message_key)}, after deleting its rejected consumed_message row.`;
  }
  if (Number(row.kept_bytes) < Number(row.body_bytes)) {
    return `its body was cut at ${row.kept_bytes} of ${row.body_bytes} bytes when it was kept, so what would go is not what came: send it again from its producer.`;
  }
  return undefined;
}

/**
 * Step 1, one transaction: lock the kept row, delete the rejected inbox row of its key (or the
 * replay would arrive as a duplicate of its own rejection) and count the replay as `sending`.
 * A crash after it loses nothing: the kept row stays, and a replay in `sending` may be run again.
 */
async function startReplay(tx: Transaction, id: number, audit: ReplayKeptOptions['audit']): Promise<Prepared> {
  const { rows } = await tx.query<KeptRow>(sql`SELECT consumer_name, message_key, kept_as, source, body_bytes, kept_bytes, octet_length(body) AS stored_bytes,
    origin, replay_state, replays FROM kept_message WHERE id = ${id} FOR UPDATE`);
  const row = rows[0];
  if (row === undefined) throw new KeptMessageNotFoundError(id);
  if (row.replay_state === 'sent') return { kind: 'already-sent', key: row.message_key };
  const refused = refusal(row);
  if (refused !== undefined) throw new KeptReplayRefusedError(id, refused);
  const { rows: claims } = await tx.query<{ status: string }>(sql`SELECT status FROM consumed_message
    WHERE consumer_name = ${row.consumer_name} AND message_id = ${row.message_key}`);
  if (claims[0]?.status === 'processed') {
    // Applied since (a replay that crashed before it was marked sent, or the producer sent it again).
    await tx.query(sql`UPDATE kept_message SET replay_state = 'sent', replayed_at = now() WHERE id = ${id}`);
    await audit?.(tx, { id, consumer: row.consumer_name, key: row.message_key });
    return { kind: 'already-processed', key: row.message_key };
  }
  if (claims[0] !== undefined) {
    await tx.query(sql`DELETE FROM consumed_message WHERE consumer_name = ${row.consumer_name} AND message_id = ${row.message_key} AND status = 'rejected'`);
  }
  await tx.query(sql`UPDATE kept_message SET replay_state = 'sending', replays = replays + 1, replayed_at = now(), replay_error = NULL WHERE id = ${id}`);
  await audit?.(tx, { id, consumer: row.consumer_name, key: row.message_key });
  const origin = typeof row.origin === 'string' ? JSON.parse(row.origin) as SqsOrigin : row.origin;
  return { kind: 'send', row, body: await keptBodyOf(tx, id, Number(row.stored_bytes)), origin, attempt: Number(row.replays) + 1 };
}

/**
 * A kept body, read in parts as the relay reads an outbox row's (`value-parts.ts`): the Data API
 * answers at most 64 KB a row and 1 MiB a call, and a kept body may hold 1 MiB
 * (`KEPT_BODY_MAX_BYTES`), so the parts come `VALUE_READ_BYTES` at a time.
 */
async function keptBodyOf(tx: Transaction, id: number, storedBytes: number): Promise<string> {
  const parts = partsOf(storedBytes);
  const partsARead = VALUE_READ_BYTES / VALUE_PART_BYTES;
  const read: (Uint8Array | null)[] = [];
  for (let first = 0; first < parts; first += partsARead) {
    const last = Math.min(parts, first + partsARead) - 1;
    const { rows } = await tx.query<{ part: number; bytes: Uint8Array | null }>(sql`SELECT p.part, ${valuePart(sql`k.body`, sql`p.part`)} AS bytes
    FROM kept_message k, generate_series(${first}::int, ${last}::int) AS p(part)
    WHERE k.id = ${id} ORDER BY p.part`);
    read.push(...rows.map((row) => row.bytes));
  }
  return joinedParts(read);
}

async function queueUrlOf(id: number, origin: SqsOrigin, options: ReplayKeptOptions): Promise<string> {
  if (options.queueUrl !== undefined) return options.queueUrl;
  const queue = origin.eventSourceARN === null ? undefined : queueOfArn(origin.eventSourceARN);
  if (queue === undefined) throw new KeptReplayRefusedError(id, `its source ${JSON.stringify(origin.eventSourceARN)} is not an SQS queue's ARN: give queueUrl.`);
  const { QueueUrl } = await options.client.send(new GetQueueUrlCommand(queue));
  if (QueueUrl === undefined) throw new KeptReplayRefusedError(id, `GetQueueUrl found no URL for ${origin.eventSourceARN}: give queueUrl.`);
  return QueueUrl;
}

/** Step 2: the send, with the kept key, group and attributes; a send that fails is reported, not thrown. */
async function send(id: number, prepared: Extract<Prepared, { kind: 'send' }>, options: ReplayKeptOptions): Promise<Extract<ReplayKeptResult, { kind: 'sent' | 'failed' }>> {
  const { row, body, origin, attempt } = prepared;
  try {
    const queueUrl = await queueUrlOf(id, origin, options);
    const { sent, failed } = await sendMessages(options.client, queueUrl, [{
      body,
      key: row.message_key,
      attributes: sendAttributes(origin.messageAttributes ?? {}),
      ...(origin.messageGroupId === null ? {} : { groupId: origin.messageGroupId }),
      // A new id for each replay: SQS would drop a resend under the original's within its 5-minute window.
      deduplicationId: `sqs-inbox-replay-${id}-${attempt}`,
    }], { maxBatchBytes: AWS_LIMITS.sqs.batchBytes });
    if (sent[0] !== undefined) return { kind: 'sent', key: row.message_key, messageId: sent[0].messageId };
    return { kind: 'failed', key: row.message_key, error: `${failed[0]?.code ?? 'Unknown'}: ${failed[0]?.message ?? 'not sent'}` };
  } catch (error) {
    return { kind: 'failed', key: row.message_key, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}

/**
 * Sends a kept (rejected) SQS message back to its queue with its original idempotency key, FIFO
 * group and message attributes, so its consumer applies it once, or keeps it again if it fails
 * again: never lost, never applied twice. In order: (1) one transaction locks the kept row, deletes
 * the key's rejected inbox row (or the replay would be a duplicate of its own rejection) and marks
 * the replay `sending`; (2) the kit's producer sends it; (3) the row is marked `sent`, or, when the
 * send failed, left replayable with the error. A crash between steps leaves `sending`, and running
 * the replay again is safe: the key makes a second copy a duplicate, and a key applied since ends
 * as `already-processed`. Refused (`KeptReplayRefusedError`): a collision, a Kafka record (the kit
 * sends to SQS only; the error says how to produce it again), a body cut at the bound.
 *
 * @example
 * ```ts
 * import { SQSClient } from '@aws-sdk/client-sqs';
 * import { replayKept } from 'sqs-inbox/operator';
 * import { dataApiDatabaseFromEnv } from 'sqs-inbox/data-api';
 *
 * const result = await replayKept(dataApiDatabaseFromEnv(), 42, { client: new SQSClient({}) });
 * if (result.kind === 'failed') console.error(`not sent, still replayable: ${result.error}`);
 * ```
 */
export async function replayKept(db: Database, id: number, options: ReplayKeptOptions): Promise<ReplayKeptResult> {
  const prepared = await db.transaction((tx) => startReplay(tx, id, options.audit));
  if (prepared.kind !== 'send') return prepared;
  const result = await send(id, prepared, options);
  // Only this replay's row is marked: a later replay started meanwhile counts its own.
  await db.query(result.kind === 'sent'
    ? sql`UPDATE kept_message SET replay_state = 'sent', replayed_at = now() WHERE id = ${id} AND replays = ${prepared.attempt}`
    : sql`UPDATE kept_message SET replay_state = NULL, replay_error = ${result.error} WHERE id = ${id} AND replays = ${prepared.attempt}`);
  return result;
}
