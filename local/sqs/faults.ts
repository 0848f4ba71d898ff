/** What a fault hook is told about a message being received. */
export interface FaultMessage {
  readonly queueName: string;
  readonly messageId: string;
  readonly body: string;
  /** Receives so far, this one included. */
  readonly receiveCount: number;
  readonly groupId: string | undefined;
  /** Copies of this receive already handed out: 0 on the receive itself, 1 on its first copy, and so on. */
  readonly copies: number;
}

/** What a fault hook is told about an entry of SendMessageBatch. */
export interface FaultSendEntry {
  readonly queueName: string;
  readonly id: string;
  readonly body: string;
}

/** What a fault hook is told about an entry of DeleteMessageBatch (or a DeleteMessage). */
export interface FaultDeleteEntry {
  readonly queueName: string;
  readonly messageId: string;
  readonly body: string;
}

/** What a fault hook is told about a request that succeeded. */
export interface FaultCall {
  readonly operation: string;
  readonly queueName: string | undefined;
}

/**
 * Faults the emulator injects on request, each a predicate asked at one point; a hook left out
 * never fires. They model what SQS really does now and then, so a consumer or producer can be shown
 * to cope:
 * - `deliverTwice`: asked for each message a receive hands out. When true, the next receive (by any
 *   caller; waiting long polls wake at once) gets the same message again, with its own receipt
 *   handle, while the first receiver still holds it, and either handle deletes it. A standard queue
 *   does this when a copy on another server was missed. On a FIFO queue it stands for a consumer
 *   whose visibility timeout ran out while it was still working: the next receive gets the group
 *   from its head, the first receiver's earlier in-flight messages of the group included, in order.
 *   On a standard queue it is asked again as each copy is handed out (`copies` counts them), so a
 *   message may reach three receivers or more at once.
 * - `failSendEntry`: asked for each SendMessageBatch entry. When true, the entry is answered in
 *   `Failed` with InternalError (SenderFault false) and nothing is stored: the producer should retry it.
 * - `failDeleteEntry`: asked for each message a DeleteMessageBatch entry (or a DeleteMessage) names.
 *   When true, the entry is answered in `Failed` with InternalError (a DeleteMessage with HTTP 500)
 *   and the message stays: it comes back after its visibility timeout, as after a delete that was
 *   lost. Lambda does not retry a failed delete, so a committed message can come back again and again.
 * - `loseResponse`: asked after a request was applied. When true, the answer is HTTP 500
 *   InternalError instead, as if the response was lost: the SDK retries the call, and a standard
 *   queue then holds the message twice (a FIFO queue drops the retry as a duplicate).
 *
 * @example
 * ```ts
 * const sqs = await startSqs({ faults: { deliverTwice: (m) => m.receiveCount === 1 && Math.random() < 0.05 } });
 * ```
 */
export interface SqsFaults {
  readonly deliverTwice?: (message: FaultMessage) => boolean;
  readonly failSendEntry?: (entry: FaultSendEntry) => boolean;
  readonly failDeleteEntry?: (entry: FaultDeleteEntry) => boolean;
  readonly loseResponse?: (call: FaultCall) => boolean;
}

/** How often each fault fired. */
export interface FaultCounts {
  /** Copies handed out: a message that reached three receivers at once counts 2. */
  deliveredTwice: number;
  failedSendEntries: number;
  failedDeleteEntries: number;
  lostResponses: number;
}
