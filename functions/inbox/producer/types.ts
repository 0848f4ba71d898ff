import type { MessageAttributeValue } from '@aws-sdk/client-sqs';

export interface OutgoingMessage {
  /** The body: a string as it is, anything else as JSON. */
  readonly body: string | object;
  /**
   * The idempotency key: the same key for every send of the same message, so the consumer's inbox
   * sees a producer retry as a duplicate.
   * @default the `idempotency-key` attribute given, else a new UUIDv7
   */
  readonly key?: string;
  /** The message group; required on a FIFO queue. */
  readonly groupId?: string;
  /**
   * On a FIFO queue, the MessageDeduplicationId, when it must differ from the key (a replay of a
   * kept message: SQS would drop a resend under the original's id within its 5-minute window).
   * @default the key (its sha-256 when the key is not a valid deduplication id)
   */
  readonly deduplicationId?: string;
  /**
   * Message attributes besides the idempotency key.
   * @default none
   */
  readonly attributes?: Readonly<Record<string, MessageAttributeValue>>;
}

/** Options of `sendMessages`. */
export interface SendMessagesOptions {
  /**
   * Attempts of each entry, the first one included, before it is reported failed.
   * @default 4
   */
  readonly maxAttempts?: number;
  /**
   * The first retry waits up to this long (full jitter), doubling each attempt up to `maxDelayMs`.
   * @default 50
   */
  readonly baseDelayMs?: number;
  /**
   * The longest wait between attempts.
   * @default 2000
   */
  readonly maxDelayMs?: number;
  /**
   * Bytes of a batch (bodies and attributes, as SQS counts them) and of one message.
   * @default 1048576 (1 MiB, the SQS limit since 2025)
   */
  readonly maxBatchBytes?: number;
}

/** A message SQS took. */
export interface SentMessage {
  /** Its position in the `messages` given. */
  readonly index: number;
  readonly key: string;
  readonly messageId: string;
  /** On FIFO queues. */
  readonly sequenceNumber?: string;
}

/** A message that was not sent: refused before sending, refused by SQS, or out of attempts. */
export interface FailedMessage {
  readonly index: number;
  readonly key: string;
  /** `InvalidMessage` and `MessageTooLong` are the producer's own refusals; others are SQS's codes. */
  readonly code: string;
  readonly message: string;
  /** Whether sending it again unchanged can never work. */
  readonly senderFault: boolean;
  readonly attempts: number;
}

/** What `sendMessages` did with every message. */
export interface SendMessagesResult {
  /** The idempotency key of each message, in the order given; keep them to send the same messages again. */
  readonly keys: readonly string[];
  readonly sent: readonly SentMessage[];
  readonly failed: readonly FailedMessage[];
}
