import { DeleteMessageBatchCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type pg from 'pg';
import { startTestSqs, type TestSqs } from './sqs.js';

/** An outbox row as a test looks at it. */
export interface OutboxRowView {
  id: string;
  target: string;
  message_key: string;
  body: string;
  attributes: Record<string, string>;
  group_id: string | null;
  group_seq: string | null;
  detail_type: string | null;
  claimed_by: string | null;
  claimed_until: Date | null;
  attempts: number;
  dispatched_at: Date | null;
  failed_at: Date | null;
  error: string | null;
}

/** The outbox rows a consumer wrote, in the order they were written. */
export async function outboxRows(pool: pg.Pool, consumer: string): Promise<OutboxRowView[]> {
  const { rows } = await pool.query<OutboxRowView>(
    `SELECT id, target, message_key, body, attributes, group_id, group_seq, detail_type, claimed_by, claimed_until, attempts, dispatched_at, failed_at, error
     FROM outbox_message WHERE consumer_name = $1 ORDER BY created_at, group_seq NULLS FIRST, id`, [consumer]);
  return rows;
}

/** A consumer's FIFO groups as the outbox keeps them. */
export async function outboxGroups(pool: pg.Pool, consumer: string): Promise<{ target: string; group_id: string; next_seq: string; open_rows: number; holder: string | null }[]> {
  const { rows } = await pool.query(
    'SELECT target, group_id, next_seq, open_rows, holder FROM outbox_group WHERE consumer_name = $1 ORDER BY target, group_id', [consumer]);
  return rows;
}

/** Makes a consumer's rows look as if written `seconds` ago, their leases run out: the relay's grace and the writer's lease are past. */
export async function ageOutbox(pool: pg.Pool, consumer: string, seconds: number): Promise<void> {
  await pool.query(`UPDATE outbox_message SET created_at = created_at - make_interval(secs => $2),
    claimed_until = CASE WHEN claimed_until IS NULL THEN NULL ELSE now() - interval '1 second' END WHERE consumer_name = $1`, [consumer, seconds]);
  await pool.query(`UPDATE outbox_group SET held_until = CASE WHEN held_until IS NULL THEN NULL ELSE now() - interval '1 second' END
    WHERE consumer_name = $1`, [consumer]);
}

/** Every message in a queue, received and deleted (so a FIFO group's next message comes), in the order received. */
export async function drainMessages(client: SQSClient, queueUrl: string): Promise<Message[]> {
  const drained: Message[] = [];
  for (;;) {
    const { Messages = [] } = await client.send(new ReceiveMessageCommand({
      QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, VisibilityTimeout: 60,
      MessageSystemAttributeNames: ['All'], MessageAttributeNames: ['All'],
    }));
    if (Messages.length === 0) return drained;
    drained.push(...Messages);
    await client.send(new DeleteMessageBatchCommand({
      QueueUrl: queueUrl, Entries: Messages.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle! })),
    }));
  }
}

/** The `idempotency-key` attribute of a received message. */
export const keyAttribute = (message: Message): string | undefined => message.MessageAttributes?.['idempotency-key']?.StringValue;

/** The SQS emulator, failing every SendMessageBatch entry whose body is in `failing` while it is there. */
export async function sqsFailingBodies(): Promise<{ local: TestSqs; failing: Set<string> }> {
  const failing = new Set<string>();
  const local = await startTestSqs({ faults: { failSendEntry: ({ body }) => failing.has(body) } });
  return { local, failing };
}
