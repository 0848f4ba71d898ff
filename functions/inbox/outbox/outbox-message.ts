/**
 * A message a handler sends on through the outbox: its row is written in the claim's transaction
 * (or in the guarded statement), so it exists exactly when the incoming message's effect committed,
 * and it is sent after the commit. Its row's id, a UUIDv7, goes with it as the idempotency key.
 * `K` is the names of the consumer's targets (any string by default).
 *
 * @example
 * ```ts
 * const shipped: OutboxMessage = { target: 'shipped', body: { orderId }, groupId: customerId };
 * ```
 */
export interface OutboxMessage<K extends string = string> {
  /** The name of one of the outbox option's targets: typed by them where the options are inferred, checked at run time too. */
  readonly target: K;
  /** A string as it is, anything else as JSON. On EventBridge, the event's detail: a JSON object. */
  readonly body: string | object;
  /**
   * MessageGroupId: required by a FIFO target, whose groups keep their order downstream; passed on
   * as it is by a standard queue (fair queues); refused by EventBridge.
   * @default none
   */
  readonly groupId?: string;
  /**
   * String message attributes (SQS, SNS) besides `idempotency-key`, which the outbox sets; at most 9.
   * @default none
   */
  readonly attributes?: Readonly<Record<string, string>>;
  /**
   * EventBridge: the event's detail-type, at most 128 characters.
   * @default the target's detailType, else the target's name
   */
  readonly detailType?: string;
}

/** A message as its row holds it: checked against its target, measured, ready to go. */
export interface PreparedMessage {
  /** The body as it goes out. */
  readonly body: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly groupId: string | undefined;
  readonly detailType: string | undefined;
  /** The message's size as its target counts it. */
  readonly sizeBytes: number;
}

/**
 * One row, as a `Publisher` is given it to send.
 *
 * @example
 * ```ts
 * publish: async (entries) => entries.map((entry) => ({ kind: 'sent' })) // entry.id is the idempotency key
 * ```
 */
export interface OutboxEntry {
  /** The row's UUIDv7: send it as the idempotency key, the same on every send of this row. */
  readonly id: string;
  /** The consumer that wrote the row. */
  readonly consumer: string;
  readonly target: string;
  readonly body: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly groupId: string | undefined;
  readonly detailType: string | undefined;
  /**
   * The context of the span that wrote the row, as a W3C `traceparent`: send it on (as the
   * kit's targets do) and the next consumer's span continues the trace.
   */
  readonly traceparent?: string | undefined;
}
